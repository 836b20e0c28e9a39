// The audit log's two costs the issue asks to measure (issue AB): the sealer's throughput on the embedded
// database, and the offline verifier's time for an export of --events lines (default 1,000,000), built in
// memory with one checkpoint and its leaf hashes. Run: node --import tsx bench/audit-log.ts [--events N] [--seal N]
// With --postgres the sealer runs on a fresh database on BENCH_DATABASE_URL (default 127.0.0.1:5432) as well;
// --no-verify skips the verifier (bench/audit-verify-1m.ts times it from files, as an auditor runs it).
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { sql } from "drizzle-orm";
import { createDb } from "../db/client.js";
import { exportedEvent } from "../server/audit/event.js";
import { eventLeafHash } from "../server/audit/log/leaf.js";
import { Frontier } from "../server/audit/log/merkle.js";
import { checkpointText, generateSignerKey, parseSignerKey, parseVerifierKey, signNote } from "../server/audit/log/note.js";
import { verifyLog } from "../server/audit/log/verify.js";
import { sealAll } from "../server/audit/sealer.js";
import { createBenchDatabase } from "./database.js";

const { values } = parseArgs({
  options: {
    events: { type: "string" },
    seal: { type: "string" },
    postgres: { type: "boolean", default: false },
    "no-verify": { type: "boolean", default: false },
  },
});
const verifyEvents = Number(values.events ?? 1_000_000);
const sealEvents = Number(values.seal ?? 20_000);

async function sealerThroughput(on: "PGlite" | "PostgreSQL"): Promise<void> {
  const pg =
    on === "PostgreSQL" ? await createBenchDatabase(process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres") : null;
  const handle = pg ? await createDb({ databaseUrl: pg.url, maxConnections: 2 }) : await createDb({ pgliteDir: "memory://" });
  if (!pg) await handle.migrate();
  // Events queued as writers leave them: inserted (the trigger queues each), not yet sealed.
  await handle.db.execute(sql`insert into audit_events (id, actor_id, actor_email, action, target_type, target_id, after)
    select gen_random_uuid(), 'bench', 'bench@example.com', 'cohort.create', 'cohort', 'c-' || g, jsonb_build_object('n', g)
    from generate_series(1, ${sealEvents}) g`);
  const started = performance.now();
  const sealed = await sealAll(handle.db);
  const seconds = (performance.now() - started) / 1000;
  console.log(`sealer (${on}): ${sealed} events in ${seconds.toFixed(2)} s = ${Math.round(sealed / seconds)} events/s`);
  await handle.close();
  await pg?.drop();
}

async function verifierTime(): Promise<void> {
  const keys = generateSignerKey("bench.local/audit");
  const at = new Date("2026-11-28T12:00:00Z");
  const lines: string[] = [];
  const hashes: Buffer[] = [];
  const frontier = Frontier.empty();
  for (let i = 0; i < verifyEvents; i++) {
    const event = exportedEvent({
      id: randomUUID(),
      seq: i + 1,
      at,
      actorId: "bench",
      actorEmail: "bench@example.com",
      action: "cohort.activate",
      targetType: "cohort",
      targetId: `c-${i}`,
      before: { status: "ready" },
      after: { status: "active", n: i },
      reason: null,
      requestId: null,
      impersonatorId: null,
      impersonatorEmail: null,
      details: null,
    });
    lines.push(JSON.stringify({ leafIndex: i, event }));
    const hash = eventLeafHash(event);
    hashes.push(hash);
    frontier.append(hash);
  }
  const note = signNote(
    checkpointText({ origin: "bench.local/audit", size: verifyEvents, root: frontier.root() }),
    parseSignerKey(keys.signer),
  );
  const started = performance.now();
  const verdict = await verifyLog({
    exportLines: lines,
    checkpoints: [{ name: "checkpoint", note }],
    leaves: [{ name: "leaves", from: 0, to: verifyEvents, bytes: Buffer.concat(hashes) }],
    verifier: parseVerifierKey(keys.verifier),
  });
  const seconds = (performance.now() - started) / 1000;
  if (!verdict.ok) throw new Error(verdict.problem);
  console.log(`verifier: ${verifyEvents} events in ${seconds.toFixed(1)} s (${Math.round(verifyEvents / seconds)} events/s)`);
}

await sealerThroughput("PGlite");
if (values.postgres) await sealerThroughput("PostgreSQL");
if (!values["no-verify"]) await verifierTime();
