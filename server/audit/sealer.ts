// Sealing: giving committed audit events their leaf indexes (docs/guarantees.md "Audit log"). One
// transaction takes the head row FOR UPDATE SKIP LOCKED (so one sealer runs at a time across every
// instance, and another simply skips its turn), reads queued events that have committed, appends them to the
// tree, and deletes them from the queue. Writers never wait for it: they only insert. A sealer that dies
// mid-seal rolls back whole; the next seal starts from the same head.
import { asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { auditEvents, auditLogHead, auditLogLeaves, auditLogNodes, auditUnsealed } from "../../db/schema/index.js";
import { exportedEvent } from "./event.js";
import { eventLeafHash } from "./log/leaf.js";
import { Frontier } from "./log/merkle.js";
import { rightEdge } from "./tree.js";

/** Events per seal: bounded so a backlog (the first start after migration 0023) is sealed in steps. */
export const SEAL_BATCH = 500;

export type SealResult =
  /** Another sealer holds the head: nothing done. */
  { busy: true } | { busy: false; sealed: number; size: number };

export async function sealBatch(db: Db, limit = SEAL_BATCH): Promise<SealResult> {
  return db.transaction(async (tx) => {
    const [head] = await tx.select().from(auditLogHead).where(eq(auditLogHead.id, 1)).for("update", { skipLocked: true });
    if (!head) return { busy: true };
    const queued = await tx
      .select({ event: auditEvents })
      .from(auditUnsealed)
      .innerJoin(auditEvents, eq(auditEvents.id, auditUnsealed.eventId))
      .orderBy(asc(auditUnsealed.seq))
      .limit(limit);
    if (queued.length === 0) return { busy: false, sealed: 0, size: head.size };

    const frontier = Frontier.of(head.size, await rightEdge(tx, head.size));
    // A stored tree that no longer hashes to its head was changed behind the log's back: extending it would
    // bury that, so sealing stops until someone looks.
    if (!frontier.root().equals(head.root)) throw new Error(`audit log: the stored tree of ${head.size} leaves does not hash to its head`);
    const leaves = [];
    const nodes = [];
    for (const { event } of queued) {
      leaves.push({ leafIndex: frontier.size, eventId: event.id });
      for (const n of frontier.append(eventLeafHash(exportedEvent(event)))) nodes.push({ level: n.level, idx: n.index, hash: n.hash });
    }
    await tx.insert(auditLogLeaves).values(leaves);
    // ~2 nodes a leaf, 3 parameters each: well inside PostgreSQL's 65,535 parameters a statement.
    await tx.insert(auditLogNodes).values(nodes);
    await tx.delete(auditUnsealed).where(
      inArray(
        auditUnsealed.eventId,
        leaves.map((l) => l.eventId),
      ),
    );
    await tx.update(auditLogHead).set({ size: frontier.size, root: frontier.root(), sealedAt: sql`now()` }).where(eq(auditLogHead.id, 1));
    return { busy: false, sealed: leaves.length, size: frontier.size };
  });
}

/** Seals until nothing committed is left, or another sealer has the head. */
export async function sealAll(db: Db): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await sealBatch(db);
    if (result.busy) return total;
    total += result.sealed;
    if (result.sealed < SEAL_BATCH) return total;
  }
}
