// The authorization matrix's rows for the audit log (audit.checkpoint and the proofs, docs/api.md#audit-log):
// each cell finds a sealed leaf and a signed checkpoint, made here since the matrix's app runs no sealer.

import { expect } from "vitest";
import { auditCheckpoints } from "../../db/schema/index.js";
import { checkpointText, signNote } from "../../server/audit/log/note.js";
import { readHead } from "../../server/audit/tree.js";
import { sealedLog, testSigningKey } from "./audit-log.js";
import type { MatrixContext, ProcedureRow } from "./authz-rows.js";
import type { WireOutput } from "./rest.js";

type LogPaths = "audit.checkpoint" | "audit.inclusionProof" | "audit.consistencyProof";

export function auditLogRows(context: () => MatrixContext): { [P in LogPaths]: ProcedureRow<WireOutput<P>> } {
  const db = () => context().app.db.db;
  const key = testSigningKey();
  async function checkpointed() {
    await sealedLog(db());
    const head = await readHead(db());
    const note = signNote(checkpointText({ origin: key.signer.name, size: head.size, root: head.root }), key.signer);
    await db().insert(auditCheckpoints).values({ treeSize: head.size, note }).onConflictDoNothing();
    return head.size;
  }
  return {
    "audit.checkpoint": {
      access: "admin",
      prepare: async () => {
        await checkpointed();
        return { after: (data) => expect(data.checkpoint).toMatch(/^\S+\n\d+\n\S+\n\n\u2014 /) };
      },
    },
    "audit.inclusionProof": {
      access: "admin",
      prepare: async () => ({
        input: { leafIndex: 0, treeSize: await sealedLog(db()) },
        after: (data) => expect(Array.isArray(data.hashes)).toBe(true),
      }),
    },
    "audit.consistencyProof": {
      access: "admin",
      prepare: async () => {
        const size = await sealedLog(db());
        return { input: { from: 1, to: size }, after: (data) => expect(Array.isArray(data.hashes)).toBe(true) };
      },
    },
  };
}
