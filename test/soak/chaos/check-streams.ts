// Streams and pushes: every change heard by every stream open across it (or the stream told to refetch), and
// every accepted push delivered once (twice at most across a crash or an answer cut off), never twice at the same time.
import { at, faultsAround, HEAR_AFTER_FAULT_MS, HEAR_MS, show, type Violation } from "./bounds.js";
import type { FinalDb, History, Req, StreamRec } from "./history.js";
import { countRange, proWrites, type UserModel } from "./model.js";

type Stream = { sid: number; kind: string; subject: string; inst: number; open: number; close: number; events: StreamRec[] };

function streamsOf(h: History): Stream[] {
  const byId = new Map<number, Stream>();
  for (const s of h.streams) {
    let st = byId.get(s.sid);
    if (!st) {
      st = { sid: s.sid, kind: s.kind, subject: s.subject, inst: s.inst, open: Infinity, close: Infinity, events: [] };
      byId.set(s.sid, st);
    }
    if (s.ev === "open") st.open = s.at;
    else if (s.ev === "close") st.close = s.at;
    else st.events.push(s);
  }
  return [...byId.values()];
}

/**
 * When a change may have been made: an answer replayed for an Idempotency-Key acknowledges the change an
 * earlier attempt with that key made, so it may have been heard from that attempt's start on.
 */
function firstAttempts(h: History) {
  const first = new Map<string, number>();
  for (const r of h.reqs) {
    if (!r.key) continue;
    const k = `${r.cred} ${r.key}`;
    first.set(k, Math.min(first.get(k) ?? Infinity, r.start));
  }
  return (r: Req) => (r.key ? (first.get(`${r.cred} ${r.key}`) ?? r.start) : r.start);
}

/** The time by which a change acknowledged at `end` must be heard: later when a fault was held around it. */
function hearBy(h: History, from: number, end: number) {
  const faults = faultsAround(h.faults, from - HEAR_AFTER_FAULT_MS, end + HEAR_MS);
  return Math.max(end + HEAR_MS, ...faults.map((f) => f.end + HEAR_AFTER_FAULT_MS));
}

/**
 * An unread-count stream's value may lag the count by the hearing bound, never more: at each moment a change
 * must have been heard (and after each fault), its last value is one the writes allow.
 */
export function checkUnreadStreams(h: History, users: Map<string, UserModel>): Violation[] {
  const out: Violation[] = [];
  const startOf = firstAttempts(h);
  for (const s of streamsOf(h).filter((x) => x.kind === "unread")) {
    const m = users.get(s.subject);
    if (!m) continue;
    const changes = [
      ...m.writes.map((w) => ({ from: startOf(w), end: w.end })),
      ...m.notes.map((n) => ({ from: n.createdFrom, end: n.ack.end })),
    ];
    const moments = [
      ...changes.map((c) => ({ t: hearBy(h, c.from, c.end), why: c })),
      ...h.faults.map((f) => ({ t: f.end + HEAR_AFTER_FAULT_MS + HEAR_MS, why: { from: f.start, end: f.end } })),
    ];
    for (const { t } of moments) {
      if (s.open > t - HEAR_MS - HEAR_AFTER_FAULT_MS || s.close < t) continue;
      if (faultsAround(h.faults, t - HEAR_MS - HEAR_AFTER_FAULT_MS, t).length) continue;
      const last = s.events.filter((e) => e.at <= t).at(-1);
      if (!last || typeof last.value !== "number") continue;
      // Judged as a read over [t − bound, t]: the value must be one the count had within the bound.
      const { min: lo, max: hi } = countRange(m, t - HEAR_MS, t, s.inst);
      if (last.value >= lo && last.value <= hi) continue;
      out.push({
        kind: "stream missed a change",
        what: `unread stream ${s.sid} of ${s.subject} on instance ${s.inst} still showed ${last.value} (since ${at(last.at)}) at ${at(t)}, when the count was ${lo}–${hi}`,
        requests: m.writes.filter((w) => w.end <= t && w.end > t - 10_000).map((w) => w.id),
      });
      break;
    }
  }
  return out;
}

/** Every acknowledged change of a watched pro reaches every OFREP stream of that pro open across it. */
export function checkOfrepStreams(h: History): Violation[] {
  const out: Violation[] = [];
  const streams = streamsOf(h).filter((x) => x.kind === "ofrep");
  const startOf = firstAttempts(h);
  for (const [pro, writes] of proWrites(h)) {
    for (const w of writes) {
      if (w.outcome !== "ok") continue;
      const from = startOf(w);
      const by = hearBy(h, from, w.end);
      for (const s of streams) {
        if (s.subject !== pro || s.open > from || s.close < by) continue;
        if (s.events.some((e) => e.at > from && e.at <= by)) continue;
        out.push({
          kind: "stream missed a change",
          what: `OFREP stream ${s.sid} of ${pro} on instance ${s.inst}, open ${at(s.open)}–${s.close === Infinity ? "end" : at(s.close)}, heard nothing of ${show(w)} by ${at(by)}`,
          requests: [w.id],
        });
      }
    }
  }
  return out;
}

export function checkPushes(h: History, db: FinalDb): Violation[] {
  const out: Violation[] = [];
  const crashes = h.lives.filter((l) => l.ev === "killed").map((l) => l.at);
  const arrivals = new Map<string, History["pushes"]>();
  for (const p of h.pushes) {
    const k = `${p.path} ${p.title}`;
    arrivals.set(k, [...(arrivals.get(k) ?? []), p]);
  }
  for (const d of db.deliveries) {
    const got = (arrivals.get(`${d.path} Soak ${d.eventId}`) ?? []).sort((a, b) => a.arrivedAt - b.arrivedAt);
    const delivered = got.filter((p) => p.status === 201);
    if (d.status === "queued" || d.status === "failed") {
      out.push({
        kind: "push not delivered",
        what: `delivery ${d.id} (${d.eventId}) is ${d.status} after ${d.attempts} attempts at the end`,
        requests: [],
      });
    }
    if (d.status === "sent" && !delivered.length) {
      out.push({
        kind: "push not delivered",
        what: `delivery ${d.id} (${d.eventId}) is sent, but the push service never answered it`,
        requests: [],
      });
    }
    for (let i = 1; i < got.length; i++) {
      const [a, b] = [got[i - 1]!, got[i]!];
      if (b.arrivedAt < a.closedAt) {
        out.push({
          kind: "push sent while its lease was held",
          what: `delivery ${d.id} (${d.eventId}) arrived at ${at(b.arrivedAt)} while the send of ${at(a.arrivedAt)} was still open`,
          requests: [],
        });
      }
    }
    // A send may be repeated, once, when the sender could not know it arrived: it crashed between the push
    // service's answer and recording it, or the push service cut the connection before the answer was read.
    const crashed = delivered.length >= 2 && crashes.some((c) => c >= delivered[0]!.arrivedAt - 1000 && c <= delivered.at(-1)!.arrivedAt);
    const first = delivered[0];
    const answerLost =
      first !== undefined && h.cuts.some((c) => c.path === first.path && c.title === first.title && c.arrivedAt === first.arrivedAt);
    const excuse = crashed
      ? " across a crash"
      : answerLost
        ? " after its first answer was cut off"
        : " with no crash or cut answer between";
    if (delivered.length > 2 || (delivered.length === 2 && !crashed && !answerLost)) {
      out.push({
        kind: "push delivered twice",
        what: `delivery ${d.id} (${d.eventId}) was delivered ${delivered.length} times (${delivered.map((p) => at(p.arrivedAt)).join(", ")})${excuse}`,
        requests: [],
      });
    }
  }
  return out;
}
