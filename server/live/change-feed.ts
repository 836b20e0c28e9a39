// The database's change announcements (LISTEN/NOTIFY) as the live streams follow them. A NOTIFY sent while
// the LISTEN connection is down is lost for good: each channel therefore names how to catch up, which runs
// every time listening resumes after such a gap (docs/api.md#live-unread-count, CONTRACT part four).
import type { DbHandle } from "../../db/client.js";
import { dbListenReconnects } from "../observability/metrics.js";

export type ChannelFollower = {
  onPayload(payload: string): void;
  /** Brings what the channel feeds up to date: its announcements during the gap were missed. */
  catchUp(): Promise<void>;
  onError(err: unknown): void;
};

/** Listens on `channel`; resolves to the function that stops it. */
export async function followChannel(listen: DbHandle["listen"], channel: string, follower: ChannelFollower): Promise<() => Promise<void>> {
  // The series exists from the start, so the first reconnect shows in rate() and increase().
  dbListenReconnects.inc({ channel }, 0);
  return listen(channel, follower.onPayload, () => {
    dbListenReconnects.inc({ channel });
    follower.catchUp().catch(follower.onError);
  });
}
