// Reading the audit log's tree from its stored complete subtrees (db/schema/audit-log.ts): any range a
// proof names is a handful of stored nodes (server/audit/log/merkle.ts), so a proof costs one query however
// large the log.
import { and, eq, inArray, or, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { auditLogHead, auditLogNodes } from "../../db/schema/index.js";
import { foldSubtrees, type Hash, type NodeId, type Range, subtrees } from "./log/merkle.js";

export type Head = { size: number; root: Hash };

export async function readHead(db: DbOrTx): Promise<Head> {
  const [head] = await db.select({ size: auditLogHead.size, root: auditLogHead.root }).from(auditLogHead).where(eq(auditLogHead.id, 1));
  if (!head) throw new Error("audit log: no head row (migration 0023 makes it)");
  return head;
}

const key = (n: NodeId) => `${n.level}:${n.index}`;

/** The stored hashes of these nodes; throws when one is missing (the tree was cut). */
export async function readNodes(db: DbOrTx, nodes: readonly NodeId[]): Promise<Map<string, Hash>> {
  const found = new Map<string, Hash>();
  if (nodes.length === 0) return found;
  const byLevel = new Map<number, number[]>();
  for (const n of nodes) byLevel.set(n.level, [...(byLevel.get(n.level) ?? []), n.index]);
  const where: SQL[] = [...byLevel].map(([level, idxs]) => and(eq(auditLogNodes.level, level), inArray(auditLogNodes.idx, idxs))!);
  const rows = await db
    .select()
    .from(auditLogNodes)
    .where(or(...where));
  for (const row of rows) found.set(key({ level: row.level, index: row.idx }), row.hash);
  for (const n of nodes) if (!found.has(key(n))) throw new Error(`audit log: node ${key(n)} is missing`);
  return found;
}

/** The hashes of these ranges, in order, from one read of their subtrees. */
export async function rangeHashes(db: DbOrTx, ranges: readonly Range[]): Promise<Hash[]> {
  const parts = ranges.map(subtrees);
  const nodes = await readNodes(db, parts.flat());
  return parts.map((ids) => foldSubtrees(ids.map((n) => nodes.get(key(n))!)));
}

/** The hashes of the right edge of the tree of `size` leaves (Frontier.of's input). */
export async function rightEdge(db: DbOrTx, size: number): Promise<Hash[]> {
  const ids = subtrees({ start: 0, end: size });
  const nodes = await readNodes(db, ids);
  return ids.map((n) => nodes.get(key(n))!);
}
