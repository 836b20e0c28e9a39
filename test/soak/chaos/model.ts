// What the history says was written: each watched pro's writes in order, and each user's notifications with
// when they were surely and possibly created, read or deleted. Reads and streams are judged against these.
import { across } from "./bounds.js";
import type { History, Req } from "./history.js";

export type ProWrite = Req & { meta: { pro: string; value: boolean } };

/** Writes of each watched pro's status, in the order they were sent (one writer, one at a time). */
export function proWrites(h: History): Map<string, ProWrite[]> {
  const out = new Map<string, ProWrite[]>();
  for (const r of h.reqs) {
    if (r.meta?.write !== "pro" || r.outcome === "refused") continue;
    const w = r as ProWrite;
    if (!out.has(w.meta.pro)) out.set(w.meta.pro, []);
    out.get(w.meta.pro)!.push(w);
  }
  for (const list of out.values()) list.sort((a, b) => a.start - b.start);
  return out;
}

/**
 * The values a read of a pro over [rs, re] on instance `inst` may show: the newest write acknowledged at
 * least the bound before it started (or the initial `false`), and any write sent since, unless it failed.
 */
export function proCandidates(writes: ProWrite[], rs: number, re: number, inst: number) {
  let lower = -1;
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i]!;
    if (w.outcome === "ok" && w.end + across(w.inst, inst) <= rs) lower = i;
  }
  const values = new Set<boolean>([lower >= 0 ? writes[lower]!.meta.value : false]);
  const since: ProWrite[] = [];
  for (let i = lower + 1; i < writes.length; i++) {
    const w = writes[i]!;
    if (w.start >= re) break;
    since.push(w);
    if (w.outcome === "ok" || w.outcome === "unknown") values.add(w.meta.value);
  }
  return { values, lower: lower >= 0 ? writes[lower]! : null, since };
}

/** One notification of a user: when its creation was sent and acknowledged, and when it was (maybe) read or deleted. */
export type Note = {
  id: string;
  user: string;
  eventId: string;
  /** The first attempt's start, and the acknowledging attempt. */
  createdFrom: number;
  ack: Req;
  /** Per reader instance: the earliest time from which it must be read or deleted. */
  goneSure: number[];
  /** The earliest start of any write that may have read or deleted it. */
  goneMaybe: number;
  /** The writes that touch it, for messages. */
  touches: Req[];
};

type Ev = { eventId: string; userId: string };
type Result = { eventId: string; status: string; notificationId: string | null };

/** Producer batches: the attempts of one batch (the same events, sent again) share their first eventId. */
export function producerBatches(h: History): Map<string, Req[]> {
  const batches = new Map<string, Req[]>();
  for (const r of h.reqs) {
    const events = r.meta?.events as Ev[] | undefined;
    if (r.op !== "producer: events" || !events?.length) continue;
    const first = events[0]!.eventId;
    if (!batches.has(first)) batches.set(first, []);
    batches.get(first)!.push(r);
  }
  return batches;
}

export type UserModel = { notes: Note[]; unknownCreations: number[]; writes: Req[] };

export function userModels(h: History, instances: number): Map<string, UserModel> {
  const users = new Map<string, UserModel>();
  const user = (id: string) => {
    if (!users.has(id)) users.set(id, { notes: [], unknownCreations: [], writes: [] });
    return users.get(id)!;
  };
  const batches = producerBatches(h);
  const byId = new Map<string, Note>();
  for (const attempts of batches.values()) {
    const events = attempts[0]!.meta!.events as Ev[];
    const ack = attempts.find((a) => a.outcome === "ok");
    for (const e of events) {
      const result = (ack?.body as Result[] | undefined)?.find((x) => x.eventId === e.eventId);
      if (!ack || !result?.notificationId) {
        if (!ack && attempts.some((a) => a.outcome === "unknown")) user(e.userId).unknownCreations.push(attempts[0]!.start);
        continue;
      }
      const note: Note = {
        id: result.notificationId,
        user: e.userId,
        eventId: e.eventId,
        createdFrom: attempts[0]!.start,
        ack,
        goneSure: Array.from({ length: instances }, () => Infinity),
        goneMaybe: Infinity,
        touches: [],
      };
      byId.set(note.id, note);
      user(e.userId).notes.push(note);
    }
  }
  const readAlls: Req[] = [];
  for (const r of h.reqs) {
    const write = r.meta?.write;
    if (write !== "read" && write !== "delete" && write !== "read-all") continue;
    if (r.outcome === "refused") continue;
    user(r.meta!.user as string).writes.push(r);
    if (write === "read-all") {
      readAlls.push(r);
      continue;
    }
    for (const id of r.meta!.ids as string[]) {
      const note = byId.get(id);
      if (note) touch(note, r, true, instances);
    }
  }
  for (const r of readAlls) {
    for (const note of users.get(r.meta!.user as string)?.notes ?? []) {
      // A read-all surely reads what was acknowledged before it started; it may read what was sent before it ended.
      if (note.createdFrom < r.end) touch(note, r, note.ack.end <= r.start, instances);
    }
  }
  return users;
}

function touch(note: Note, r: Req, surely: boolean, instances: number) {
  if (r.outcome !== "ok" && r.outcome !== "unknown") return;
  note.touches.push(r);
  note.goneMaybe = Math.min(note.goneMaybe, r.start);
  if (r.outcome === "ok" && surely) {
    for (let i = 0; i < instances; i++) note.goneSure[i] = Math.min(note.goneSure[i]!, r.end + across(r.inst, i));
  }
}

/** The least and most a count read over [rs, re] on `inst` may show, with the notifications that make them. */
export function countRange(m: UserModel, rs: number, re: number, inst: number) {
  let min = 0;
  let max = 0;
  const sure: Note[] = [];
  for (const n of m.notes) {
    if (n.createdFrom >= re) continue;
    const createdSure = n.ack.end + across(n.ack.inst, inst) <= rs;
    if (createdSure && n.goneMaybe >= re) {
      min++;
      sure.push(n);
    }
    if (n.goneSure[inst]! > rs) max++;
  }
  if (m.unknownCreations.some((t) => t < re)) max = Infinity;
  return { min, max, sure };
}
