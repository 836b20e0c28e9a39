// `npm run bench`: a fresh PostgreSQL database, seeded; the product and the floor started side by side on
// loopback; every scenario driven with autocannon at 10,000 and at 1,000,000 notifications; cohort
// activation and push fan-out timed; EXPLAIN of every hot statement; the table printed and written to
// bench/results/. The database is dropped and every child process stopped at the end, whatever happens.
// The parts: run-context.ts (options, keys, cleanup), run-scale.ts (the HTTP scenarios at one size),
// run-alone.ts (the measurements on a database of their own); here, the order of it all and the full run's report.
import { mkdirSync, writeFileSync } from "node:fs";
import { bareVerdicts, tableVerdict } from "./ae-verdicts.js";
import { loadBaseline } from "./baseline.js";
import { createBenchDatabase } from "./database.js";
import { type LayerTiming, layersTable, measureLayers } from "./layers.js";
import { type MemorySamples, measurePgliteMemory, memoryTable, memoryVerdict } from "./pglite-memory.js";
import { type PropagationResult, propagationTable, propagationVerdicts } from "./propagation.js";
import { countsVerdict, inProcessTable, loadVerdicts, ofrepVerdicts, type Row, table, verdictLines, verdicts } from "./report.js";
import {
  runOfrepStreams,
  runProducerIngest,
  runPropagation,
  runPushCollapse,
  runPushDrain,
  runStreams,
  runWriteCeiling,
} from "./run-alone.js";
import { cleanup, environment, live, loadAverage, log, options, resultsDir, secret, wanted } from "./run-context.js";
import { measureScale } from "./run-scale.js";
import { seedBase } from "./seed.js";

/** Measurements that run only when named, each on a database of its own. */
const NAMED_ONLY = ["streams", "ofrep-streams", "producer-ingest", "push-drain", "push-collapse", "write-ceiling"];
/** Measurements on a database of their own that the full run makes too (their table also in latest.md). */
const OWN_DATABASE = ["propagation"];

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping servers and dropping the database`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main() {
  const started = Date.now();
  log(`database server ${new URL(options.serverUrl).host}; ${options.quick ? "quick mode" : "full run"}`);
  if (options.only.includes("streams")) await runStreams();
  if (options.only.includes("ofrep-streams")) await runOfrepStreams();
  if (options.only.includes("producer-ingest")) await runProducerIngest();
  if (options.only.includes("push-drain")) await runPushDrain();
  if (options.only.includes("push-collapse")) await runPushCollapse();
  if (options.only.includes("write-ceiling")) await runWriteCeiling();
  const propagation: PropagationResult | null = wanted("propagation") ? await runPropagation() : null;
  if (options.only.length > 0 && options.only.every((name) => NAMED_ONLY.includes(name) || OWN_DATABASE.includes(name))) return;
  const db = await createBenchDatabase(options.serverUrl);
  live.db = db;
  log(`database ${db.name} created and migrated`);
  const env = await environment([
    `- load: ${options.connections} connections, ${options.duration} s per run after ${options.warmup} s warm-up, ${options.rounds} rounds; the from-memory reads against bare ${options.bareRounds} rounds of ${options.bareDuration} s; product and floor pools ${options.poolSize} connections`,
  ]);

  log(
    `signing up ${options.users} users and an admin through better-auth; ${options.pros.toLocaleString("en")} pros, cohorts of ${options.cohortSize}`,
  );
  const seeded = await seedBase(db.sql, db.url, secret, { users: options.users, pros: options.pros, cohortSize: options.cohortSize });

  const rows: Row[] = [];
  const explains: { scale: string; text: string }[] = [];
  let small: string | null = null;
  if (!options.skipSmall && options.smallRows < options.rows && (wanted("list") || wanted("unread-count"))) {
    const r = await measureScale(db, seeded, options.smallRows, ["list", "unread-count"], rows);
    small = r.scale;
    explains.push({ scale: r.scale, text: r.explainText });
  }
  const big = await measureScale(
    db,
    seeded,
    options.rows,
    [
      "list",
      "list-category",
      "list-search",
      "unread-count",
      "unread-count-cookie",
      "pro-status",
      "ofrep-eval",
      "ofrep-bulk",
      "ofrep-bulk-304",
      "mark-read",
    ],
    rows,
  );
  explains.push({ scale: big.scale, text: big.explainText });

  let layers: LayerTiming[] = [];
  if (wanted("layers")) {
    log("layers: each part of a request timed alone, in this process");
    layers = await measureLayers(db.url, seeded, options.quick ? 300 : 1000);
  }

  let memory: MemorySamples | null = null;
  if (wanted("pglite-memory")) {
    log("pglite-memory: npm start on the embedded PGlite, a new data folder and a restart");
    memory = await measurePgliteMemory(1, 0, log); // 0: a free port
  }

  const baseline = loadBaseline();
  const counts = countsVerdict(big.explained, big.scale);
  const aeTable = tableVerdict(rows, big.scale, small);
  const verdictList = [
    ...loadVerdicts(rows, big.scale, baseline),
    ...(counts ? [counts] : []),
    ...verdicts(rows, big.scale, small, big.activation, big.push),
    ...ofrepVerdicts(rows, big.scale),
    ...bareVerdicts(rows, big.scale),
    ...(aeTable ? [aeTable] : []),
    ...(memory ? [memoryVerdict(memory)] : []),
    ...(propagation ? propagationVerdicts(propagation) : []),
  ];
  const output = [
    `## Results (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${((Date.now() - started) / 60000).toFixed(1)} min)`,
    "",
    ...env,
    `- load average at the end: ${loadAverage()}`,
    "",
    ...(baseline ? [`The last three columns are the same row in bench/results/before-j.json (the full run before issue J).`, ""] : []),
    table(rows, baseline),
    "",
    inProcessTable(big.activation, big.push, options.cohortSize),
    "",
    ...(layers.length ? ["Where the time of one request goes (one call at a time, no load):", "", layersTable(layers), ""] : []),
    ...(memory ? [memoryTable(memory), ""] : []),
    ...(propagation
      ? [
          "A pro's status changed, until two product instances serve it (on a database of its own; also in propagation.md):",
          "",
          propagationTable(propagation),
          "",
        ]
      : []),
    "Targets:",
    "",
    verdictLines(verdictList),
    "",
    "Index use (from the EXPLAIN files beside this one):",
    "",
    ...big.explained.map(
      (e) => `- ${e.label}: ${e.indexes.join(", ") || "(no index)"}${e.seqScans.length ? `; seq scan on ${e.seqScans.join(", ")}` : ""}`,
    ),
  ].join("\n");

  console.log(`\n${output}\n`);
  if (big.activation) {
    console.log("Statements of one product cohort activation (inside BEGIN … COMMIT):");
    big.activation.statementTexts.forEach(
      (s, i) => void console.log(`  ${i + 1}. ${s.replace(/\s+/g, " ").slice(0, 160)}${s.length > 160 ? " …" : ""}`),
    );
  }
  if (options.write) {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(`${resultsDir}latest.md`, `${output}\n`);
    for (const e of explains) writeFileSync(`${resultsDir}explain-${e.scale}.txt`, e.text);
    writeFileSync(
      `${resultsDir}latest.json`,
      `${JSON.stringify({ options: { ...options, serverUrl: undefined }, rows, memory, propagation, activation: big.activation && { ...big.activation, statementTexts: big.activation.statementTexts.map((t) => t.slice(0, 200)) }, push: big.push, layers, verdicts: verdictList }, null, 1)}\n`,
    );
    log(`written to ${resultsDir}`);
  }
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await cleanup();
}
// Anything still open (a keep-alive socket) must not keep the process alive.
process.exit(process.exitCode ?? 0);
