// Inputs and answers of the audit log's procedures (docs/api.md#audit-log): the newest checkpoint, and
// proofs between the log's trees. Leaves count from 0; a tree of size n holds leaves 0…n−1.
import { z } from "zod";

const count = (what: string, min: number, example: number) =>
  z
    .number()
    .int()
    .min(min)
    .max(Number.MAX_SAFE_INTEGER)
    .meta({ description: what, examples: [example] });

export const inclusionProofInput = z.object({
  leafIndex: count("The leaf (from 0), as the export's leafIndex names it", 0, 3),
  treeSize: count("The size of the tree the proof leads to: a checkpoint's tree size, at most the log's", 1, 8),
});

export const consistencyProofInput = z.object({
  from: count("The size of the earlier tree (a checkpoint's)", 0, 6),
  to: count("The size of the later tree, at most the log's", 0, 8),
});

export const checkpointOutput = z
  .object({
    checkpoint: z
      .string()
      .describe(
        "The newest signed checkpoint as C2SP signed-note text: origin, tree size, base64 root hash, an empty line, and the signature line",
      ),
  })
  .meta({ id: "AuditCheckpoint", description: "The audit log's newest signed checkpoint" });

export const proofOutput = z
  .object({
    hashes: z.array(z.string()).describe("The proof's hashes, base64, in RFC 6962 order"),
  })
  .meta({ id: "AuditProof", description: "An RFC 6962 proof over the audit log" });
