// The bounds the checker holds the history to (docs/guarantees.md, docs/scaling.md, CONTRACT.md part four).
import { ANSWER_MARGIN_SECONDS, DB_DEADLINE_SECONDS } from "../settings.js";
import type { FaultRec, Req } from "./history.js";

/** Memory's bound: a write acknowledged by one instance is read on another within 0.5 s; on its own at once. */
export const ACROSS_MS = 500;
export const across = (writer: number, reader: number) => (writer === reader ? 0 : ACROSS_MS);

/**
 * A stream hears a change within 1 s of its commit (docs/api.md, live unread count and OFREP event streams),
 * plus 1 s for this loaded, shared machine's scheduling.
 */
export const HEAR_MS = 2_000;
/** After a fault heals: the feed's return (a reconnect, a relay taking over) and then 2 s, plus 2 s of margin. */
export const HEAR_AFTER_FAULT_MS = 4_000;

/** Every request is answered within DB_QUERY_TIMEOUT_SECONDS plus a margin (SOAK_ANSWER_MARGIN_SECONDS: a busy machine). */
export const ANSWER_WITHIN_MS = (DB_DEADLINE_SECONDS + ANSWER_MARGIN_SECONDS) * 1000;

/** A request is "after" a fault window if it started that much past its heal. */
export const faultsAround = (faults: FaultRec[], from: number, to: number) => faults.filter((f) => f.start <= to && f.end >= from);

export type Violation = { kind: string; what: string; requests: number[] };

/** The run's start: times in messages are shown from it. */
export const origin = { t0: 0 };
export const at = (t: number) => `${((t - origin.t0) / 1000).toFixed(3)} s`;

export const show = (r: Req) =>
  `#${r.id} ${r.actor} ${r.method} ${r.path} → ${r.status || r.error || "no answer"} (${r.outcome}${r.replayed ? ", replayed" : ""}) on instance ${r.inst}, ${at(r.start)}–${at(r.end)}`;
