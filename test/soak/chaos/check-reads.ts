// Reads against the writes acknowledged before them: a pro's status (OFREP, the admin's view) and a user's
// unread count (REST, tRPC, the inbox), within memory's bound; and revoked sessions and keys refused.
import { across, show, type Violation } from "./bounds.js";
import type { History, Req } from "./history.js";
import { countRange, proCandidates, proWrites, type UserModel } from "./model.js";

export function checkProReads(h: History): Violation[] {
  const out: Violation[] = [];
  const writes = proWrites(h);
  for (const r of h.reqs) {
    if (r.meta?.read !== "pro" || typeof r.meta.value !== "boolean") continue;
    const pro = r.meta.pro as string;
    const list = writes.get(pro) ?? [];
    const { values, lower, since } = proCandidates(list, r.start, r.end, r.inst);
    if (values.has(r.meta.value)) continue;
    const failed = since.filter((w) => w.outcome === "fail" && w.meta.value === r.meta!.value);
    const evidence = [r.id, ...(lower ? [lower.id] : []), ...since.map((w) => w.id)];
    if (failed.length) {
      out.push({
        kind: "write committed behind an error answer",
        what: `${pro} read ${r.meta.value}, which only writes answered with an error set: ${show(r)}; the error: ${show(failed[0]!)}`,
        requests: evidence,
      });
    } else {
      out.push({
        kind: "stale read (memory served past its bound)",
        what: `${pro} read ${r.meta.value}, but ${lower ? `${show(lower)} set ${lower.meta.value}` : "no write"} at least the bound before: ${show(r)}`,
        requests: evidence,
      });
    }
  }
  return out;
}

export function checkCountReads(h: History, users: Map<string, UserModel>): Violation[] {
  const out: Violation[] = [];
  for (const r of h.reqs) {
    if (r.meta?.read !== "count" || typeof r.meta.count !== "number") continue;
    const m = users.get(r.meta.user as string);
    if (!m) continue;
    const { min, max, sure } = countRange(m, r.start, r.end, r.inst);
    const count = r.meta.count;
    if (count >= min && count <= max) continue;
    const near = m.writes.filter((w) => w.end > r.start - 5000 && w.start < r.end).slice(-5);
    out.push({
      kind:
        count < min
          ? "count below the acknowledged writes (a lost write, or one behind an error)"
          : "stale count (memory served past its bound)",
      what: `${show(r)} answered ${count}; the acknowledged writes before it allow ${min}–${max}${
        count < min
          ? `; surely unread: ${sure
              .slice(0, 3)
              .map((n) => `${n.id} (${n.eventId}, touched by ${n.touches.map((t) => `#${t.id} ${t.outcome}`).join(", ") || "nothing"})`)
              .join("; ")}`
          : ""
      }`,
      requests: [r.id, ...near.map((w) => w.id)],
    });
  }
  return out;
}

/** Every request with a revoked session or key that started the bound after the revocation's answer is refused. */
export function checkRevocations(h: History): Violation[] {
  const out: Violation[] = [];
  const revokes = new Map<string, Req>();
  for (const r of h.reqs) if (r.outcome === "ok" && typeof r.meta?.revokes === "string") revokes.set(r.meta.revokes, r);
  for (const r of h.reqs) {
    const revoke = r.cred ? revokes.get(r.cred) : undefined;
    if (!revoke || r.id === revoke.id) continue;
    if (r.start < revoke.end + across(revoke.inst, r.inst)) continue;
    if (r.status >= 200 && r.status < 300) {
      out.push({
        kind: "revoked credential accepted",
        what: `${r.cred} was revoked by ${show(revoke)}, then accepted: ${show(r)}`,
        requests: [revoke.id, r.id],
      });
    }
  }
  return out;
}
