// A synthetic audit log on disk, in the formats the offline verifier reads (tools/audit-verify.ts), to time
// `npm run audit:verify` on --events events (default 1,000,000): the export NDJSON as GET /api/admin/audit/export
// writes it, a checkpoint directory as server/audit/publish.ts fills it (a signed checkpoint every
// events/--checkpoints leaves, each with the leaf hashes it added), and the verifier key file. Run:
//   node --import tsx bench/audit-verify-1m.ts [--events N] [--checkpoints N] [--out DIR]
// then the command it prints, under `time`.
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { exportedEvent } from "../server/audit/event.js";
import { checkpointFileName, leavesFileName } from "../server/audit/log/files.js";
import { eventLeafHash } from "../server/audit/log/leaf.js";
import { Frontier } from "../server/audit/log/merkle.js";
import { checkpointText, generateSignerKey, parseSignerKey, signNote } from "../server/audit/log/note.js";

const { values } = parseArgs({ options: { events: { type: "string" }, checkpoints: { type: "string" }, out: { type: "string" } } });
const events = Number(values.events ?? 1_000_000);
const checkpoints = Number(values.checkpoints ?? 10);
const out = values.out ?? mkdtempSync(join(tmpdir(), "audit-verify-bench-"));
const origin = "bench.local/audit";

const dir = join(out, "checkpoints");
mkdirSync(dir, { recursive: true });
const keys = generateSignerKey(origin);
const signer = parseSignerKey(keys.signer);
writeFileSync(join(out, "audit-log.key"), `${keys.verifier}\n`);

const sign = (frontier: Frontier) =>
  writeFileSync(
    join(dir, checkpointFileName(frontier.size)),
    signNote(checkpointText({ origin, size: frontier.size, root: frontier.root() }), signer),
  );

const exportPath = join(out, "export.ndjson");
const exportFile = createWriteStream(exportPath);
const frontier = Frontier.empty();
// The service signs the empty log's checkpoint when it starts.
sign(frontier);
const every = Math.ceil(events / checkpoints);
let pending: Buffer[] = [];
let from = 0;
const at = new Date("2026-11-28T12:00:00Z");
for (let i = 0; i < events; i++) {
  // Shaped like a cohort activation's event: a before and after, and half the events with details.
  const event = exportedEvent({
    id: randomUUID(),
    seq: i + 1,
    at: new Date(at.getTime() + i),
    actorId: "bench-admin",
    actorEmail: "bench-admin@bench.test",
    action: "cohort.activate",
    targetType: "cohort",
    targetId: `c-${i}`,
    before: { status: "ready" },
    after: { status: "active", proIds: 500 },
    reason: i % 2 === 0 ? "gates passed" : null,
    requestId: randomUUID(),
    impersonatorId: null,
    impersonatorEmail: null,
    details: i % 2 === 0 ? { changeRequestId: randomUUID() } : null,
  });
  if (!exportFile.write(`${JSON.stringify({ leafIndex: i, event })}\n`)) await once(exportFile, "drain");
  const hash = eventLeafHash(event);
  frontier.append(hash);
  pending.push(hash);
  if (frontier.size % every === 0 || frontier.size === events) {
    writeFileSync(join(dir, leavesFileName(from, frontier.size)), Buffer.concat(pending));
    sign(frontier);
    pending = [];
    from = frontier.size;
  }
}
exportFile.end();
await once(exportFile, "finish");
console.log(`${events} events, ${checkpoints} checkpoints (and the empty log's) in ${out}`);
console.log(`npm run audit:verify -- --export ${exportPath} --checkpoints ${dir} --key ${join(out, "audit-log.key")}`);
