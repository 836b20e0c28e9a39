// Read-your-writes for memory (issue W): after a write of this process that may change what memory holds,
// no instance memory of this process is served again until it has heard a heartbeat sent after the write
// (MemoryFeed.fence). A write's own announcement reaches memory a few milliseconds later; the caller that
// made the write must not read the value from before it meanwhile. Process-wide, since a write may come
// through any door: REST, tRPC, a test's or script's caller, better-auth's routes.
//
// The fence, and a user's count dropped after their notification write, must follow the COMMIT: before it, a
// heartbeat or a count read can still see the old value and vouch for it. A keyed request's procedure runs
// inside one transaction (server/rest/idempotency.ts), so there they wait for it to settle (afterSettling).
import { AsyncLocalStorage } from "node:async_hooks";
import { inAsyncContext, quietWhenIdle } from "../http/async-context.js";
import type { MemoryFeed } from "./feed.js";

const feeds = new Set<MemoryFeed>();

/** Fences `feed` at every write of this process from now on; returns the function that stops it. */
export function fenceOnWrites(feed: MemoryFeed): () => void {
  feeds.add(feed);
  return () => feeds.delete(feed);
}

const deferred = new AsyncLocalStorage<Array<() => void>>();
quietWhenIdle(deferred);

/**
 * Runs `run` (a transaction whose COMMIT is its last step); what memory must learn of the writes made in it
 * (memoryEffect) happens once it has settled, committed or not: a lost COMMIT's answer may hide a commit.
 */
export async function afterSettling<T>(run: () => Promise<T>): Promise<T> {
  const effects: Array<() => void> = [];
  try {
    return await inAsyncContext(() => deferred.run(effects, run));
  } finally {
    for (const effect of effects) effect();
  }
}

/** Tells memory about a write now, or once the enclosing afterSettling's transaction has settled. */
export function memoryEffect(effect: () => void): void {
  const waiting = deferred.getStore();
  if (waiting) waiting.push(effect);
  else effect();
}

/** A write that may change memory has just committed (or may have). */
export function wroteMemory(): void {
  memoryEffect(() => {
    for (const feed of feeds) feed.fence();
  });
}

/**
 * A user's own notification procedures and the producer API change no memory but unread counts, which they
 * drop themselves (server/memory/counts.ts): they need not fence.
 */
export const procedureMayChangeMemory = (path: string) => !path.startsWith("notifications.");
