// Signed checkpoints of the audit log (C2SP tlog-checkpoint): made in the database under the head's lock,
// so instances never sign two for one size, then published outside it (server/audit/publish.ts).
import { desc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.js";
import { auditCheckpoints, auditLogHead } from "../../db/schema/index.js";
import { checkpointText, type Signer, signNote } from "./log/note.js";

export type StoredCheckpoint = typeof auditCheckpoints.$inferSelect;

export async function newestCheckpoint(db: DbOrTx): Promise<StoredCheckpoint | null> {
  const [row] = await db.select().from(auditCheckpoints).orderBy(desc(auditCheckpoints.treeSize)).limit(1);
  return row ?? null;
}

/**
 * Signs a checkpoint of the current tree when it grew since the newest one and that one is at least
 * `everySeconds` old (or `force`, on shutdown); the first checkpoint is made at once. Answers the new one.
 */
export async function checkpointIfDue(db: Db, signer: Signer, everySeconds: number, force = false): Promise<StoredCheckpoint | null> {
  return db.transaction(async (tx) => {
    // Waits for a seal in progress: the checkpoint is of a head no seal is changing.
    const [head] = await tx.select().from(auditLogHead).where(eq(auditLogHead.id, 1)).for("update");
    if (!head) return null;
    const [newest] = await tx
      .select({
        treeSize: auditCheckpoints.treeSize,
        age: sql<number>`extract(epoch from now() - ${auditCheckpoints.createdAt})::float8`,
      })
      .from(auditCheckpoints)
      .orderBy(desc(auditCheckpoints.treeSize))
      .limit(1);
    if (newest && (head.size <= newest.treeSize || (!force && newest.age < everySeconds))) return null;
    const note = signNote(checkpointText({ origin: signer.name, size: head.size, root: head.root }), signer);
    const [made] = await tx.insert(auditCheckpoints).values({ treeSize: head.size, note }).returning();
    return made ?? null;
  });
}
