// Writes against the final database and against their own retries: none acknowledged and lost, none committed
// behind an error (or behind an unknown outcome without its stored answer), no eventId created twice, every
// gated change applied after a second person's approval, every request answered in time.
import { ANSWER_WITHIN_MS, show, type Violation } from "./bounds.js";
import type { FinalDb, History, Req } from "./history.js";
import { proCandidates, producerBatches, proWrites, type UserModel } from "./model.js";

type Result = { eventId: string; status: string; notificationId: string | null };
type Ev = { eventId: string; userId: string };

export function checkProducer(h: History, db: FinalDb): Violation[] {
  const out: Violation[] = [];
  const stored = new Map(db.events.map((e) => [e.eventId, e]));
  const created = new Map<string, Req>();
  const batches = producerBatches(h);
  for (const attempts of batches.values()) {
    const events = attempts[0]!.meta!.events as Ev[];
    for (const [i, a] of attempts.entries()) {
      for (const result of (a.outcome === "ok" ? (a.body as Result[] | undefined) : undefined) ?? []) {
        if (result.status === "created") {
          const earlier = created.get(result.eventId);
          if (earlier)
            out.push({
              kind: "eventId created twice",
              what: `${result.eventId}: ${show(earlier)} and ${show(a)} both answered created`,
              requests: [earlier.id, a.id],
            });
          else created.set(result.eventId, a);
        }
        // A duplicate means an earlier attempt committed: one of them must have said so, or not known.
        if (result.status === "duplicate") {
          const before = attempts.slice(0, i);
          if (before.length && before.every((b) => b.outcome === "fail")) {
            out.push({
              kind: "write committed behind an error answer",
              what: `${result.eventId}: every earlier attempt answered an error, yet ${show(a)} found it stored; the errors: ${before.map(show).join("; ")}`,
              requests: [...before.map((b) => b.id), a.id],
            });
          }
        }
      }
    }
    const ack = attempts.find((a) => a.outcome === "ok");
    for (const e of events) {
      const row = stored.get(e.eventId);
      if (
        ack &&
        (ack.body as Result[] | undefined)?.some((x) => x.eventId === e.eventId && (x.status === "created" || x.status === "duplicate")) &&
        !row
      ) {
        out.push({
          kind: "acknowledged write lost",
          what: `${e.eventId} acknowledged by ${show(ack)} is not in notification_events`,
          requests: [ack.id],
        });
      }
      if (!ack && row && attempts.every((a) => a.outcome === "fail" || a.outcome === "refused")) {
        out.push({
          kind: "write committed behind an error answer",
          what: `${e.eventId} is stored, but every attempt answered an error: ${attempts.map(show).join("; ")}`,
          requests: attempts.map((a) => a.id),
        });
      }
    }
  }
  return out;
}

export function checkUserWrites(db: FinalDb, users: Map<string, UserModel>): Violation[] {
  const out: Violation[] = [];
  const rows = new Map(db.notifications.map((n) => [n.id, n]));
  for (const m of users.values()) {
    for (const n of m.notes) {
      const row = rows.get(n.id);
      if (!row) {
        out.push({
          kind: "acknowledged write lost",
          what: `notification ${n.id} (${n.eventId}) acknowledged by ${show(n.ack)} is gone`,
          requests: [n.ack.id],
        });
        continue;
      }
      for (const t of n.touches.filter((t) => t.outcome === "ok")) {
        const deletes = t.meta?.write === "delete";
        if ((deletes && !row.deleted) || (!deletes && !row.read && !row.deleted && (t.meta?.write === "read" || n.ack.end <= t.start))) {
          out.push({
            kind: "acknowledged write lost",
            what: `notification ${n.id}: ${show(t)} was acknowledged, but it is ${row.deleted ? "deleted" : row.read ? "read" : "unread"}`,
            requests: [t.id],
          });
        }
      }
      // Deleted although no write that may delete it went through: one answered with an error committed.
      if (row.deleted && !n.touches.some((t) => t.meta?.write === "delete")) {
        out.push({
          kind: "write committed behind an error answer",
          what: `notification ${n.id} is deleted, but every delete of it answered an error`,
          requests: m.writes.filter((w) => (w.meta?.ids as string[] | undefined)?.includes(n.id)).map((w) => w.id),
        });
      }
    }
  }
  return out;
}

/** The final status of each watched pro is one the writes allow, read as if by a read at the end. */
export function checkProFinal(h: History, db: FinalDb): Violation[] {
  const out: Violation[] = [];
  const final = new Map(db.pros.map((p) => [p.id, p.active]));
  for (const [pro, writes] of proWrites(h)) {
    const value = final.get(pro) ?? false;
    const { values, lower, since } = proCandidates(writes, Infinity, Infinity, -1);
    if (values.has(value)) continue;
    out.push({
      kind: since.some((w) => w.outcome === "fail" && w.meta.value === value)
        ? "write committed behind an error answer"
        : "acknowledged write lost",
      what: `${pro} is ${value} at the end; the last acknowledged write ${lower ? show(lower) : "(none)"} set ${lower?.meta.value ?? false}`,
      requests: [...(lower ? [lower.id] : []), ...since.map((w) => w.id)],
    });
  }
  return out;
}

/** Keyed writes: a retry after an unknown outcome must be answered from the stored answer if the first one committed. */
export function checkKeyedRetries(h: History): Violation[] {
  const out: Violation[] = [];
  const byKey = new Map<string, Req[]>();
  for (const r of h.reqs) if (r.key && r.outcome !== "refused") byKey.set(r.key, [...(byKey.get(r.key) ?? []), r]);
  for (const attempts of byKey.values()) {
    for (const [i, a] of attempts.entries()) {
      if (i === 0 || a.replayed) continue;
      const before = attempts.slice(0, i).filter((b) => b.outcome !== "refused");
      if (!before.length) continue;
      // "Not pending any more" or "not found" on a fresh run: the earlier attempt did it, and its answer was not kept.
      const gone =
        (a.status === 404 || (a.status === 409 && !/still running/.test(JSON.stringify(a.body ?? "")))) &&
        /approve|\/api\/notifications\//.test(a.path);
      if (gone) {
        out.push({
          kind: before.some((b) => b.outcome === "unknown")
            ? "unknown outcome committed without its stored answer"
            : "write committed behind an error answer",
          what: `the retry ${show(a)} found the change already made by ${before.map(show).join("; ")}, whose answer was not kept`,
          requests: [...before.map((b) => b.id), a.id],
        });
      }
    }
  }
  return out;
}

export function checkGated(h: History, db: FinalDb): Violation[] {
  const out: Violation[] = [];
  for (const r of h.reqs) {
    if ((r.meta?.gated === "direct" || r.meta?.gated === "own") && r.status >= 200 && r.status < 300) {
      out.push({
        kind: "gated change without a second person",
        what: `${show(r)} was applied without another admin's approval`,
        requests: [r.id],
      });
    }
  }
  const requests = new Map(db.changeRequests.map((c) => [c.id, c]));
  for (const c of db.changeRequests) {
    if (c.status === "applied" && (!c.decidedById || c.decidedById === c.requestedById || !c.appliedAt)) {
      out.push({
        kind: "gated change without a second person",
        what: `change request ${c.id} is applied, decided by ${c.decidedById} and asked by ${c.requestedById}`,
        requests: [],
      });
    }
  }
  for (const a of db.activations) {
    const c = a.changeRequestId ? requests.get(a.changeRequestId) : undefined;
    if (c?.status !== "applied" || a.actorId !== c.decidedById || c.decidedById === c.requestedById) {
      out.push({
        kind: "gated change without a second person",
        what: `${a.action} of ${a.targetId} by ${a.actorId} has no applied change request of another admin (${a.changeRequestId ?? "none"})`,
        requests: [],
      });
    }
  }
  return out;
}

export function checkAnswered(h: History): Violation[] {
  const out: Violation[] = [];
  for (const r of h.reqs) {
    if (r.end - r.start > ANSWER_WITHIN_MS) {
      out.push({
        kind: "unanswered past the deadline",
        what: `${show(r)} took ${Math.round(r.end - r.start)} ms (bound ${ANSWER_WITHIN_MS} ms)`,
        requests: [r.id],
      });
    }
  }
  return out;
}
