// npm run audit:verify -- --export FILE --checkpoints DIR --key FILE
// Verifies an audit log export offline (docs/api.md#audit-log): no database, no server. FILE is the NDJSON of
// GET /api/admin/audit/export, DIR the AUDIT_CHECKPOINT_DIR (its *.checkpoint and *.leaves files), and the key
// file the text of /.well-known/audit-log-key. Exits 0 when everything verifies; otherwise 1, with one line
// naming the first leaf index or checkpoint that fails. The rules are server/audit/log/verify.ts.
import { createReadStream, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { CHECKPOINT_FILE, LEAVES_FILE } from "../server/audit/log/files.js";
import { parseVerifierKey } from "../server/audit/log/note.js";
import { type CheckpointFile, type LeavesFile, verifyLog } from "../server/audit/log/verify.js";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { export: { type: "string" }, checkpoints: { type: "string" }, key: { type: "string" } } });
  if (!values.export || !values.checkpoints || !values.key) {
    console.error("usage: npm run audit:verify -- --export FILE --checkpoints DIR --key FILE");
    return 2;
  }
  const verifier = parseVerifierKey(readFileSync(values.key, "utf8"));
  const checkpoints: CheckpointFile[] = [];
  const leaves: LeavesFile[] = [];
  for (const name of readdirSync(values.checkpoints).sort()) {
    const path = join(values.checkpoints, name);
    if (CHECKPOINT_FILE.test(name)) checkpoints.push({ name, note: readFileSync(path, "utf8") });
    const range = LEAVES_FILE.exec(name);
    if (range) leaves.push({ name, from: Number(range[1]), to: Number(range[2]), bytes: readFileSync(path) });
  }
  const exportLines = createInterface({ input: createReadStream(values.export), crlfDelay: Number.POSITIVE_INFINITY });
  const verdict = await verifyLog({ exportLines, checkpoints, leaves, verifier });
  if (!verdict.ok) {
    console.error(`FAIL ${verdict.problem}`);
    return 1;
  }
  const unsigned = verdict.leaves - verdict.signedSize;
  console.log(
    `OK ${verdict.leaves} leaves; ${verdict.checkpoints} checkpoints verified, the newest of ${verdict.signedSize} leaves` +
      (unsigned > 0 ? `; the last ${unsigned} leaves are under no checkpoint yet` : ""),
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`FAIL ${err.message}`);
    process.exit(1);
  },
);
