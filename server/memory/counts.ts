// Unread counts from memory (issue W): the count of each user who asked for it lately, dropped when the
// database announces a change to that user's notifications (migration 0007's triggers, channel
// `unread_count`) and served only while the memory feed vouches for it (feed.ts). A user's own notification
// writes on this instance drop their count at once, so they read it afresh without waiting for the
// announcement. The live streams' hub (server/live/unread-hub.ts) reads the database itself: it reads
// because a change was announced, and memory may not have heard that announcement yet.
import { type MemoryConsumer, type MemoryFeed, recalled } from "./feed.js";
import { memoryEffect } from "./fence.js";
import { createRecall, type Recall } from "./recall.js";

/** Counts remembered at most: ~260 bytes each (docs/scaling.md "Reads from memory"). */
export const REMEMBERED_COUNTS = 100_000;

type RememberedCount = { userId: string; count: number };

export type UnreadCountMemory = MemoryConsumer & {
  counts: Recall<RememberedCount>;
  /** Whether memory may be served now. */
  current(): boolean;
  attach(feed: MemoryFeed): void;
  /**
   * This process changed these users' notifications: their counts are read from the database next time
   * (once the write's transaction has settled, fence.ts).
   */
  changed(userIds: Iterable<string>): void;
};

export function createUnreadCountMemory(): UnreadCountMemory {
  let feed: MemoryFeed | undefined;
  const counts = createRecall<RememberedCount>({
    max: REMEMBERED_COUNTS,
    tagsOf: ({ userId }) => [userId],
    usable: () => true,
  });
  return {
    counts,
    channels: { unread_count: (userId) => counts.forget(userId) },
    async reload() {
      counts.clear();
    },
    current: () => feed?.current() ?? false,
    attach(given) {
      feed = given;
    },
    changed(userIds) {
      // After the COMMIT when inside a keyed transaction: a count read before it would be remembered.
      const users = [...userIds];
      memoryEffect(() => {
        for (const userId of users) counts.forget(userId);
      });
    },
  };
}

/**
 * A user's unread count from `memory` while it can vouch for it, otherwise read by `read` and remembered
 * (unless a change was announced meanwhile); counted in memory_reads_total.
 */
export async function rememberedCount(memory: UnreadCountMemory | undefined, userId: string, read: () => Promise<number>): Promise<number> {
  if (!memory) return read();
  const remembered = recalled(memory, memory.counts, userId, "unread_count");
  if (remembered) return remembered.count;
  const epoch = memory.counts.epoch();
  const count = await read();
  memory.counts.remember(userId, { userId, count }, epoch);
  return count;
}
