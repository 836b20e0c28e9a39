// Publishing checkpoints outside the database (AUDIT_CHECKPOINT_DIR, AUDIT_CHECKPOINT_URL): what makes a
// rewrite of the database's history visible, since the rewriter cannot reach these copies or the signing key.
// Into the directory go the checkpoint note and the hashes of the leaves it added since the one before
// (`<from>-<to>.leaves`, 32 bytes a leaf), so the verifier can name the exact leaf that changed; the URL gets
// the note. A checkpoint counts as published once every destination took it; until then every tick retries.
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { and, asc, desc, eq, gte, isNull, lt, lte } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { auditCheckpoints, auditLogNodes } from "../../db/schema/index.js";
import { checkpointFileName, leavesFileName } from "./log/files.js";

export type Destinations = { dir: string | null; url: string | null };

/** Writes whole or not at all: a reader never sees half a file. */
async function writeAtomically(path: string, data: Uint8Array | string): Promise<void> {
  const partial = `${path}.partial`;
  await writeFile(partial, data);
  await rename(partial, path);
}

async function post(url: string, note: string): Promise<void> {
  const answer = await fetch(url, {
    method: "POST",
    headers: { "content-type": "text/plain; charset=utf-8" },
    body: note,
    signal: AbortSignal.timeout(10_000),
  });
  await answer.body?.cancel();
  if (!answer.ok) throw new Error(`audit checkpoint: ${url} answered ${answer.status}`);
}

/** Publishes every checkpoint not yet published, oldest first; answers how many. */
export async function publishPending(db: Db, to: Destinations): Promise<number> {
  if (!to.dir && !to.url) return 0;
  let published = 0;
  for (;;) {
    const done = await db.transaction(async (tx) => {
      // One instance publishes a checkpoint: the row lock is held through the writes.
      const [pending] = await tx
        .select()
        .from(auditCheckpoints)
        .where(isNull(auditCheckpoints.publishedAt))
        .orderBy(asc(auditCheckpoints.treeSize))
        .limit(1)
        .for("update", { skipLocked: true });
      if (!pending) return false;
      if (to.dir) {
        const [previous] = await tx
          .select({ treeSize: auditCheckpoints.treeSize })
          .from(auditCheckpoints)
          .where(lt(auditCheckpoints.treeSize, pending.treeSize))
          .orderBy(desc(auditCheckpoints.treeSize))
          .limit(1);
        const from = previous?.treeSize ?? 0;
        const leaves = await tx
          .select({ hash: auditLogNodes.hash })
          .from(auditLogNodes)
          .where(and(eq(auditLogNodes.level, 0), gte(auditLogNodes.idx, from), lte(auditLogNodes.idx, pending.treeSize - 1)))
          .orderBy(asc(auditLogNodes.idx));
        await mkdir(to.dir, { recursive: true });
        // The leaves first: a checkpoint file in the directory always has its leaves beside it.
        if (pending.treeSize > from)
          await writeAtomically(join(to.dir, leavesFileName(from, pending.treeSize)), Buffer.concat(leaves.map((l) => l.hash)));
        await writeAtomically(join(to.dir, checkpointFileName(pending.treeSize)), pending.note);
      }
      if (to.url) await post(to.url, pending.note);
      await tx.update(auditCheckpoints).set({ publishedAt: new Date() }).where(eq(auditCheckpoints.treeSize, pending.treeSize));
      return true;
    });
    if (!done) return published;
    published++;
  }
}
