// This instance's part in announcing changes on PostgreSQL: a candidate for relaying the change outbox
// (db/outbox-relay.ts), with its metrics. PGlite announces at once and has no relay.
import type { Relay, RelayOptions } from "../../db/outbox-relay.js";
import { changeOutboxLag, changeRelayAnnounced, changeRelayBatchRows, changeRelayOwner } from "../observability/metrics.js";

export type RelaySettings = Pick<RelayOptions, "pollMs" | "idle" | "batchSize" | "takeoverMs">;

/**
 * Polls 50 times a second while changes flow: a change reaches listeners ~10 ms after its commit on average.
 * After a second with only memory's heartbeats (10 a second per instance), 10 times a second: the first
 * change after a quiet spell waits up to 100 ms more, and a heartbeat is still heard well within memory's
 * 500 ms bound (server/memory/feed.ts).
 */
export const DEFAULT_RELAY_SETTINGS: RelaySettings = {
  pollMs: 20,
  idle: { pollMs: 100, afterMs: 1000 },
  batchSize: 1000,
  takeoverMs: 1000,
};

export function startChangeRelay(
  startRelay: (options: RelayOptions) => Relay,
  onError: (err: unknown) => void,
  settings: Partial<RelaySettings> = {},
): Relay {
  changeRelayOwner.set(0);
  changeOutboxLag.set(0);
  return startRelay({
    ...DEFAULT_RELAY_SETTINGS,
    ...settings,
    onOwnership: (owner) => changeRelayOwner.set(owner ? 1 : 0),
    onLag: (seconds) => changeOutboxLag.set(seconds),
    onBatch: (batch) => {
      changeRelayBatchRows.observe(batch.rows);
      changeRelayAnnounced.inc({ kind: "item" }, batch.items);
      changeRelayAnnounced.inc({ kind: "notify" }, batch.notifies);
    },
    onError,
  });
}
