// What the admin API reads from the audit log (docs/api.md#audit-log): the newest checkpoint, proofs, and
// the export's pages. Functions of (db, input), for the tRPC procedures and the REST door alike.
import { asc, eq, gt } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { auditEvents, auditLogLeaves } from "../../db/schema/index.js";
import { AppError } from "../errors/errors.js";
import { newestCheckpoint } from "./checkpoints.js";
import { type ExportedEvent, exportedEvent } from "./event.js";
import { consistencyRanges, inclusionRanges } from "./log/merkle.js";
import { rangeHashes, readHead } from "./tree.js";

export const NO_CHECKPOINT =
  "No signed checkpoint yet: the log is signed only when AUDIT_SIGNING_KEY is set, and the first checkpoint follows the first seal";

export async function currentCheckpoint(db: DbOrTx): Promise<{ checkpoint: string }> {
  const newest = await newestCheckpoint(db);
  if (!newest) throw new AppError("NOT_FOUND", NO_CHECKPOINT);
  return { checkpoint: newest.note };
}

async function sealedSize(db: DbOrTx, size: number, what: string): Promise<void> {
  const head = await readHead(db);
  if (size > head.size) throw new AppError("NOT_FOUND", `${what} ${size} is beyond the log, which has ${head.size} leaves`);
}

const base64 = (hashes: Buffer[]) => ({ hashes: hashes.map((h) => h.toString("base64")) });

export async function inclusionProof(db: DbOrTx, input: { leafIndex: number; treeSize: number }): Promise<{ hashes: string[] }> {
  if (input.leafIndex >= input.treeSize) {
    throw new AppError("VALIDATION_ERROR", `leafIndex must be less than treeSize (${input.treeSize})`, [
      { field: "leafIndex", message: "must be less than treeSize" },
    ]);
  }
  await sealedSize(db, input.treeSize, "treeSize");
  return base64(await rangeHashes(db, inclusionRanges(input.leafIndex, input.treeSize)));
}

export async function consistencyProof(db: DbOrTx, input: { from: number; to: number }): Promise<{ hashes: string[] }> {
  if (input.from > input.to) {
    throw new AppError("VALIDATION_ERROR", "from must not be greater than to", [{ field: "from", message: "must not be greater than to" }]);
  }
  await sealedSize(db, input.to, "to");
  return base64(await rangeHashes(db, consistencyRanges(input.from, input.to)));
}

export type ExportLine = { leafIndex: number; event: ExportedEvent };

/** The sealed events after leaf `after` (-1: from the first), in leaf order. */
export async function exportPage(db: DbOrTx, after: number, limit: number): Promise<ExportLine[]> {
  const rows = await db
    .select({ leafIndex: auditLogLeaves.leafIndex, event: auditEvents })
    .from(auditLogLeaves)
    .innerJoin(auditEvents, eq(auditEvents.id, auditLogLeaves.eventId))
    .where(gt(auditLogLeaves.leafIndex, after))
    .orderBy(asc(auditLogLeaves.leafIndex))
    .limit(limit);
  return rows.map((row) => ({ leafIndex: row.leafIndex, event: exportedEvent(row.event) }));
}
