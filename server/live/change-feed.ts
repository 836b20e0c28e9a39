// The database's change announcements (LISTEN/NOTIFY) as the live streams follow them. A NOTIFY sent while
// the LISTEN connection is down is lost for good: each channel therefore names how to catch up, which runs
// every time listening resumes after such a gap (docs/api.md#live-unread-count, CONTRACT part four).
import type { DbHandle } from "../../db/client.js";
import { dbListenReconnects } from "../observability/metrics.js";

/**
 * postgres.js queues a LISTEN again at each failed reconnection attempt and runs them all once one succeeds:
 * the re-listens of one reconnect come as a burst, which this gathers into one catch-up.
 */
export const RELISTEN_BURST_MS = 50;

/**
 * What one announcement names: a JSON array of changed ids (migration 0018; the outbox relay sends many in
 * one NOTIFY). A bare string, from a NOTIFY sent by hand, names one.
 */
export function announcedItems(payload: string): string[] {
  if (payload.startsWith("[")) {
    try {
      const items: unknown = JSON.parse(payload);
      if (Array.isArray(items)) return items.filter((item): item is string => typeof item === "string");
    } catch {
      // Not JSON after all: taken as one id below.
    }
  }
  return [payload];
}

export type ChannelFollower = {
  /** Called once per changed item an announcement names. */
  onPayload(item: string): void;
  /** Brings what the channel feeds up to date: its announcements during the gap were missed. */
  catchUp(): Promise<void>;
  onError(err: unknown): void;
};

/** Listens on `channel`; resolves to the function that stops it. */
export async function followChannel(listen: DbHandle["listen"], channel: string, follower: ChannelFollower): Promise<() => Promise<void>> {
  // The series exists from the start, so the first reconnect shows in rate() and increase().
  dbListenReconnects.inc({ channel }, 0);
  let burst: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  const catchUp = async () => {
    burst = undefined;
    running = true;
    // A re-listen while a catch-up reads may have missed what that read already passed: one more read.
    do {
      again = false;
      await follower.catchUp().catch(follower.onError);
    } while (again);
    running = false;
  };
  const onAnnouncement = (payload: string) => {
    for (const item of announcedItems(payload)) follower.onPayload(item);
  };
  const stop = await listen(channel, onAnnouncement, () => {
    if (running) again = true;
    if (running || burst) return;
    dbListenReconnects.inc({ channel });
    burst = setTimeout(() => void catchUp(), RELISTEN_BURST_MS);
  });
  return () => {
    clearTimeout(burst);
    return stop();
  };
}
