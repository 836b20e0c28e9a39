// `npm run bench`: a fresh PostgreSQL database, seeded; the product and the floor started side by side on
// loopback; every scenario driven with autocannon at 10,000 and at 1,000,000 notifications; cohort
// activation and push fan-out timed; EXPLAIN of every hot statement; the table printed and written to
// bench/results/. The database is dropped and every child process stopped at the end, whatever happens.
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import webpush from "web-push";
import { HEARTBEAT_MS, STALENESS_BOUND_MS } from "../server/memory/feed.js";
import { type LocalPushService, startPushService } from "../tools/local-push-service.js";
import { loadBaseline } from "./baseline.js";
import { type BenchDatabase, createBenchDatabase } from "./database.js";
import { explainHotQueries, formatExplained } from "./explain.js";
import { type ActivationResult, measureCohortActivation, measurePushFanOut, type PushResult } from "./inprocess.js";
import { type LayerTiming, layersTable, measureLayers } from "./layers.js";
import { type LoadResult, probe, runLoad } from "./load.js";
import { bulkEvaluations } from "./ofrep-client.js";
import { measureOfrepStreams, ofrepStreamsTable, ofrepStreamsVerdicts } from "./ofrep-streams.js";
import { parseOptions } from "./options.js";
import { type MemorySamples, measurePgliteMemory, memoryTable, memoryVerdict } from "./pglite-memory.js";
import { measureProducerIngest, producerIngestTable, producerIngestVerdicts } from "./producer-ingest.js";
import { measurePropagation, type PropagationResult, propagationTable, propagationVerdicts } from "./propagation.js";
import { measurePushCollapse, pushCollapseTable, pushCollapseVerdicts } from "./push-collapse.js";
import { measurePushDrain, pushDrainTable, pushDrainVerdicts } from "./push-drain.js";
import {
  countsVerdict,
  inProcessTable,
  loadVerdicts,
  ofrepVerdicts,
  type Row,
  table,
  type Verdict,
  verdictLines,
  verdicts,
} from "./report.js";
import { buildScenarios, DEFAULT_TARGETS, type Scenario, type TargetKind } from "./scenarios.js";
import { ADMIN_EMAIL, analyzeAll, hotNotificationIds, type Seeded, seedBase, seedNotifications } from "./seed.js";
import { type RunningServer, startServer } from "./servers.js";
import { measureStreams, streamsTable, streamsVerdicts } from "./streams.js";
import { measureWriteCeiling, notificationsPerUser, writeCeilingTable, writeCeilingVerdicts } from "./write-ceiling.js";

const options = parseOptions(process.argv.slice(2), process.env);
const resultsDir = fileURLToPath(new URL(options.quick ? "results/tmp/" : "results/", import.meta.url));
const profileDir = fileURLToPath(new URL("results/tmp/profiles/", import.meta.url));
const secret = randomBytes(32).toString("base64url");
const vapid = webpush.generateVAPIDKeys();
const VAPID_SUBJECT = "mailto:bench@bench.test";

const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));
const wanted = (name: string) => options.only.length === 0 || options.only.includes(name);
/** Measurements that run only when named, each on a database of its own. */
const NAMED_ONLY = ["streams", "ofrep-streams", "producer-ingest", "push-drain", "push-collapse", "write-ceiling"];
/** Measurements on a database of their own that the full run makes too (their table also in latest.md). */
const OWN_DATABASE = ["propagation"];

type Target = { kind: TargetKind; label: string; server: RunningServer };

const load = { connections: options.connections, duration: options.duration, warmup: options.warmup };

/** Scenarios also run at a fixed rate, for their latency without queueing. */
const PACED = ["list", "unread-count"];

function report(scale: string, scenario: string, target: string, result: LoadResult, ratio: number | null) {
  log(
    `${scale} ${scenario.padEnd(16)} ${target.padEnd(14)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  errors ${result.errors}  cpu ${result.cpuMsPerRequest?.toFixed(2) ?? "?"} ms/req  load gen ${result.clientCpuMsPerRequest.toFixed(2)} ms/req  machine ${result.machineBusy === null ? "?" : (result.machineBusy * 100).toFixed(0)} % busy${ratio === null ? "" : `  ${ratio.toFixed(2)}× floor`}`,
  );
}

let db: BenchDatabase | undefined;
let pushService: LocalPushService | undefined;
const running = new Set<RunningServer>();

async function cleanup() {
  await Promise.allSettled([...running].map((s) => s.stop()));
  running.clear();
  await pushService?.close().catch(() => {});
  if (db) {
    log(`dropping database ${db.name}`);
    await db.drop().catch((err) => console.error(`could not drop ${db?.name}: ${(err as Error).message}`));
  }
}

let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping servers and dropping the database`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** The product's environment: `openService` on the bench database, as `npm start` would run it. */
function productEnv(): Record<string, string> {
  return {
    DATABASE_URL: db!.url,
    BETTER_AUTH_SECRET: secret,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    // One key drives every OFREP scenario: the default 30,000 a minute was met at ~2,500 evaluations a second.
    OFREP_REQUESTS_PER_MINUTE: "100000000",
    PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    VAPID_SUBJECT,
    PUSH_ALLOW_HTTP_ENDPOINTS: "true",
    // The bench's push service listens on 127.0.0.1, which push endpoints may not reach otherwise.
    PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
  };
}

async function startTargets(): Promise<Target[]> {
  const cpuProfDir = options.cpuProf ? profileDir : undefined;
  const start = async (name: string, script: string, env: Record<string, string>) => {
    const server = await startServer(name, script, env, { cpuProfDir });
    running.add(server);
    return server;
  };
  const product = await start("product", "./product-server.ts", productEnv());
  const floor = await start("floor", "./floor.ts", {
    FLOOR_DATABASE_URL: db!.url,
    FLOOR_POOL_SIZE: String(options.poolSize),
    BETTER_AUTH_SECRET: secret,
  });
  const targets: Target[] = [
    { kind: "floor", label: "floor", server: floor },
    { kind: "rest", label: "product REST", server: product },
    { kind: "trpc", label: "product tRPC", server: product },
    { kind: "ofrep", label: "product OFREP", server: product },
  ];
  return targets;
}

async function stopTargets(targets: Target[]) {
  const servers = new Set(targets.map((t) => t.server));
  await Promise.all([...servers].map((s) => s.stop()));
  for (const s of servers) running.delete(s);
}

/** The targets a scenario runs on, the floor first. */
const targetsOf = (scenario: Scenario, targets: Target[]) => targets.filter((t) => (scenario.targets ?? DEFAULT_TARGETS).includes(t.kind));

/** Every target answers the scenario, and they agree on what they answer (the floor does the same job). */
async function verify(scenario: Scenario, targets: Target[]) {
  const answers: { label: string; value: string }[] = [];
  for (const target of targetsOf(scenario, targets)) {
    const { status, body } = await probe(target.server.origin, scenario.plan(target.kind));
    try {
      answers.push({ label: target.label, value: JSON.stringify(scenario.unwrap(target.kind, status, body)) });
    } catch (err) {
      throw new Error(`${scenario.name} on ${target.label}: ${(err as Error).message}`);
    }
  }
  if (scenario.read) {
    const differing = answers.filter((a) => a.value !== answers[0]!.value);
    if (differing.length) {
      throw new Error(`${scenario.name}: targets disagree\n  ${answers.map((a) => `${a.label}: ${a.value.slice(0, 400)}`).join("\n  ")}`);
    }
  }
}

async function measureScale(seeded: Seeded, rowsTotal: number, names: string[], rows: Row[]) {
  const scale = label(rowsTotal);
  log(`seeding ${rowsTotal.toLocaleString("en")} notifications (hot user: ${options.hotRows.toLocaleString("en")})`);
  const seedStarted = performance.now();
  await seedNotifications(db!.sql, seeded, rowsTotal, options.hotRows);
  await analyzeAll(db!.sql);
  log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  const ids = await hotNotificationIds(db!.sql, seeded.hot.id, 1000);
  const targets = await startTargets();
  try {
    let proEtags: string[] | undefined;
    if (names.includes("ofrep-bulk-304") && wanted("ofrep-bulk-304")) {
      // What a client holds: the ETag of the product's last bulk answer for each pro.
      log(`ofrep-bulk-304: the product's ETag of each of the ${seeded.proIds.length.toLocaleString("en")} pros (bulk evaluations)`);
      const product = targets.find((t) => t.kind === "ofrep")!.server.origin;
      proEtags = (await bulkEvaluations(product, seeded.apiKey, seeded.proIds)).map((a) => a.etag);
    }
    const scenarios = buildScenarios({
      hotToken: seeded.hot.token,
      adminToken: seeded.admin.token,
      notificationIds: ids,
      proIds: seeded.proIds,
      apiKey: seeded.apiKey,
      proEtags,
    }).filter((s) => names.includes(s.name) && wanted(s.name));

    for (const scenario of scenarios) {
      await verify(scenario, targets);
      let floorRps: number | null = null;
      for (const target of targetsOf(scenario, targets)) {
        const result = await runLoad(target.server.origin, scenario.plan(target.kind), { ...load, pid: target.server.pid });
        if (target.kind === "floor") floorRps = result.rps;
        const ratio = target.kind === "floor" || !floorRps ? null : result.rps / floorRps;
        rows.push({ ...result, scale, scenario: scenario.name, mode: "saturated", target: target.label, ratio, read: scenario.read });
        report(scale, scenario.name, target.label, result, ratio);
      }
      if (!PACED.includes(scenario.name)) continue;
      for (const target of targetsOf(scenario, targets)) {
        const result = await runLoad(target.server.origin, scenario.plan(target.kind), {
          ...load,
          pid: target.server.pid,
          rate: options.rate,
        });
        rows.push({ ...result, scale, scenario: scenario.name, mode: "paced", target: target.label, ratio: null, read: scenario.read });
        report(scale, `${scenario.name}@${options.rate}/s`, target.label, result, null);
      }
    }

    let activation: ActivationResult | null = null;
    let push: PushResult | null = null;
    const big = rowsTotal === options.rows;
    if (big && wanted("cohort-activation")) {
      log(`cohort activation: ${options.activations} activations of ${options.cohortSize} pros`);
      activation = await measureCohortActivation(db!.url, seeded, options.activations);
    }
    if (big && wanted("push-fanout")) {
      log(`push fan-out: ${options.pushRounds} × ${options.subscriptions} subscriptions`);
      pushService ??= await startPushService();
      push = await measurePushFanOut(
        db!.sql,
        targets.find((t) => t.kind === "rest")!.server.origin,
        pushService,
        seeded,
        options.subscriptions,
        options.pushRounds,
      );
    }
    await stopTargets(targets);

    log("EXPLAIN (ANALYZE, BUFFERS) of the hot statements");
    const explained = await explainHotQueries(db!.url, seeded, ids[ids.length - 1]!);
    const explainText = formatExplained(
      `EXPLAIN (ANALYZE, BUFFERS) at ${rowsTotal.toLocaleString("en")} notifications (hot user: ${options.hotRows.toLocaleString("en")})`,
      explained,
    );
    return { scale, activation, push, explainText, explained };
  } finally {
    await stopTargets(targets);
  }
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

/** The machine and the database server; `setup` lines go before the load average. */
async function environment(setup: string[] = []): Promise<string[]> {
  const [pg] = await db!.sql<{ version: string }[]>`select version()`;
  const settings = await db!.sql<{ name: string; setting: string; unit: string | null }[]>`
    select name, setting, unit from pg_settings where name in ('shared_buffers', 'work_mem', 'max_connections', 'jit')`;
  const cpus = os.cpus();
  return [
    `- machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; ${pg?.version.split(",")[0] ?? "PostgreSQL ?"} on 127.0.0.1 (${settings.map((s) => `${s.name}=${s.setting}${s.unit ?? ""}`).join(", ")})`,
    ...setup,
    `- load average when the run started: ${loadAverage()} (1 / 5 / 15 min; the machine is shared)`,
  ];
}

/** The live-streams capacity scenario, on a database of its own (dropped before anything else runs). */
async function runStreams() {
  const started = Date.now();
  db = await createBenchDatabase(options.serverUrl);
  log(`database ${db.name} created and migrated (live streams)`);
  const env = await environment([`- product: one process, started with --expose-gc, pool of 10 connections plus its LISTEN connection`]);
  const shape = { users: options.streamUsers, streamsPerUser: options.streamsPerUser, changedUsers: options.streamChanges };
  const result = await measureStreams(db, productEnv(), shape, log);
  const output = [
    `## Live streams capacity (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${((Date.now() - started) / 60000).toFixed(1)} min)`,
    "",
    ...env,
    `- load average at the end: ${loadAverage()}`,
    "",
    streamsTable(result),
    "",
    "Targets:",
    "",
    verdictLines(streamsVerdicts(result)),
  ].join("\n");
  console.log(`\n${output}\n`);
  if (options.write) {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(`${resultsDir}streams.md`, `${output}\n`);
    writeFileSync(`${resultsDir}streams.json`, `${JSON.stringify(result, null, 1)}\n`);
    log(`written to ${resultsDir}streams.md`);
  }
  log(`dropping database ${db.name}`);
  await db.drop();
  db = undefined;
}

/** OFREP event streams and a cohort activation, on a database of its own (dropped before anything else runs). */
async function runOfrepStreams() {
  const started = Date.now();
  db = await createBenchDatabase(options.serverUrl);
  log(`database ${db.name} created and migrated (OFREP event streams)`);
  const env = await environment([`- product: one process, pool of 10 connections plus its LISTEN connection`]);
  const shape = { streams: options.ofrepStreams, pros: options.pros, cohortSize: options.cohortSize };
  const result = await measureOfrepStreams(db, productEnv(), shape, log);
  const output = [
    `## OFREP event streams and a cohort activation (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${((Date.now() - started) / 60000).toFixed(1)} min)`,
    "",
    ...env,
    `- load average at the end: ${loadAverage()}`,
    "",
    ofrepStreamsTable(result),
    "",
    "Targets:",
    "",
    verdictLines(ofrepStreamsVerdicts(result)),
  ].join("\n");
  console.log(`\n${output}\n`);
  if (options.write) {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(`${resultsDir}ofrep-streams.md`, `${output}\n`);
    writeFileSync(`${resultsDir}ofrep-streams.json`, `${JSON.stringify(result, null, 1)}\n`);
    log(`written to ${resultsDir}ofrep-streams.md`);
  }
  log(`dropping database ${db.name}`);
  await db.drop();
  db = undefined;
}

/**
 * A measurement on a database of its own (dropped before anything else runs): its table and verdicts
 * printed and written to bench/results/<name>.md and .json.
 */
async function runAlone<R>(
  name: string,
  heading: string,
  setup: string[],
  measure: (db: BenchDatabase) => Promise<R>,
  tableOf: (result: R) => string,
  verdictsOf: (result: R) => Verdict[],
): Promise<R> {
  const started = Date.now();
  db = await createBenchDatabase(options.serverUrl);
  log(`database ${db.name} created and migrated (${name})`);
  const env = await environment(setup);
  const result = await measure(db);
  const output = [
    `## ${heading} (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${((Date.now() - started) / 60000).toFixed(1)} min)`,
    "",
    ...env,
    `- load average at the end: ${loadAverage()}`,
    "",
    tableOf(result),
    "",
    "Targets:",
    "",
    verdictLines(verdictsOf(result)),
  ].join("\n");
  console.log(`\n${output}\n`);
  if (options.write) {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(`${resultsDir}${name}.md`, `${output}\n`);
    writeFileSync(`${resultsDir}${name}.json`, `${JSON.stringify(result, null, 1)}\n`);
    log(`written to ${resultsDir}${name}.md`);
  }
  log(`dropping database ${db.name}`);
  await db.drop();
  db = undefined;
  return result;
}

/** The producer API under load beside the floor's twin of it (issue O). */
const runProducerIngest = () =>
  runAlone(
    "producer-ingest",
    "Producer API: batches of 100 events",
    [
      `- load: ${options.connections} connections, ${options.duration} s per run after ${options.warmup} s warm-up; product (VAPID keys set, so its push queue runs) and floor pools ${options.poolSize} connections`,
      `- ${options.ingestUsers} users, one event each per batch; every ${options.ingestSubscribedEvery}th has one push subscription on a local push service answering 201`,
    ],
    (db) =>
      measureProducerIngest(
        db,
        productEnv(),
        {
          users: options.ingestUsers,
          subscribedEvery: options.ingestSubscribedEvery,
          connections: options.connections,
          duration: options.duration,
          warmup: options.warmup,
          floorEnv: { FLOOR_DATABASE_URL: db.url, FLOOR_POOL_SIZE: String(options.poolSize), BETTER_AUTH_SECRET: secret },
          cpuProfDir: options.cpuProf ? profileDir : undefined,
        },
        log,
      ),
    producerIngestTable,
    producerIngestVerdicts,
  );

/** The durable push queue draining 1,000 deliveries beside the same sends made directly (issue O). */
const runPushDrain = () =>
  runAlone(
    "push-drain",
    "Durable push queue: 1,000 deliveries drained",
    [
      `- product: one process, pool of 10 connections, VAPID keys set, http and private push endpoints allowed; the local push service in the bench process, answering 201`,
      `- ${options.drainUsers} users × ${options.drainSubscriptionsPerUser} push subscriptions; ${options.drainRounds} round(s) of product and direct, interleaved`,
    ],
    (db) =>
      measurePushDrain(
        db,
        productEnv(),
        {
          users: options.drainUsers,
          subscriptionsPerUser: options.drainSubscriptionsPerUser,
          rounds: options.drainRounds,
          vapid: { subject: VAPID_SUBJECT, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
          cpuProfDir: options.cpuProf ? profileDir : undefined,
        },
        log,
      ),
    pushDrainTable,
    pushDrainVerdicts,
  );

/** Topic collapse: 1,000 pushes on 100 topics to slow subscriptions, and the sends it saved (issue AC). */
const runPushCollapse = () =>
  runAlone(
    "push-collapse",
    "Topic collapse: 1,000 pushes on 100 topics to slow subscriptions",
    [
      "- product: one process, VAPID keys set, http and private push endpoints allowed; the local push service in the bench process, each endpoint answering 201 after 300 ms",
      "- 100 users × 1 push subscription; 10 batches of 100 events, event i on topic t-i, posted back to back",
    ],
    (db) => measurePushCollapse(db, productEnv(), log),
    pushCollapseTable,
    pushCollapseVerdicts,
  );

/** Count-changing single-user commits at saturation: the floor, and the product without announcements, with NOTIFY at commit and with the outbox (issue V). */
function runWriteCeiling() {
  // Five runs (the floor twice, the product three times), each a warm-up, the run and a check request.
  const perUser = notificationsPerUser(5, options.duration + options.warmup + 1, options.ceilingUsers);
  return runAlone(
    "write-ceiling",
    "Write ceiling: count-changing commits with and without announcements",
    [
      `- load: ${options.connections} connections on the floor, ${Math.floor(options.connections / 2)} on each of the two product instances at once; ${options.duration} s per run after ${options.warmup} s warm-up; floor and product pools ${options.poolSize} connections each`,
      `- ${options.ceilingUsers} users, one session and ${perUser} unread notifications each; request i marks user i mod ${options.ceilingUsers}'s next unread notification (PATCH /api/notifications/:id/read); ${options.ceilingUsers} unread-count streams open during each product run, one per user, half on each instance`,
      "- announce() (migration 0018) replaced from the bench for each run: a no-op, pg_notify per user at commit (as before V), the migration's outbox insert (restored at the end)",
    ],
    (db) =>
      measureWriteCeiling(
        db,
        productEnv(),
        {
          users: options.ceilingUsers,
          notificationsPerUser: perUser,
          connections: options.connections,
          duration: options.duration,
          warmup: options.warmup,
          cohortSize: options.cohortSize,
          floorEnv: { FLOOR_DATABASE_URL: db.url, FLOOR_POOL_SIZE: String(options.poolSize), BETTER_AUTH_SECRET: secret },
          cpuProfDir: options.cpuProf ? profileDir : undefined,
        },
        log,
      ),
    writeCeilingTable,
    writeCeilingVerdicts,
  );
}

/** A pro's status changed by raw SQL, through the admin API and across a LISTEN outage, until two product instances serve it (issue W). */
const runPropagation = () =>
  runAlone(
    "propagation",
    "Propagation: a pro's status changed, until two product instances serve it",
    [
      `- product: two instances (processes) on one database, each with its pool of 10 connections, its LISTEN connection and a relay candidate; memory's heartbeat every ${HEARTBEAT_MS} ms, memory served while the newest heard is at most ${STALENESS_BOUND_MS} ms old`,
      `- ${options.propagationChanges} changes by raw SQL, ${options.propagationAdminChanges} through instance A's admin API, ${options.propagationOutageChanges} by raw SQL with B's LISTEN connection terminated just before each; ${options.pros.toLocaleString("en")} pros, half with a stored status`,
    ],
    async (db) => {
      const seeded = await seedBase(db.sql, db.url, secret, { users: 1, pros: options.pros, cohortSize: options.cohortSize });
      const shape = {
        changes: options.propagationChanges,
        adminChanges: options.propagationAdminChanges,
        outageChanges: options.propagationOutageChanges,
      };
      return measurePropagation(db, productEnv(), seeded, shape, log);
    },
    propagationTable,
    propagationVerdicts,
  );

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
  db = await createBenchDatabase(options.serverUrl);
  log(`database ${db.name} created and migrated`);
  const env = await environment([
    `- load: ${options.connections} connections, ${options.duration} s per run after ${options.warmup} s warm-up; product and floor pools ${options.poolSize} connections`,
  ]);

  log(
    `signing up ${options.users} users and an admin through better-auth; ${options.pros.toLocaleString("en")} pros, cohorts of ${options.cohortSize}`,
  );
  const seeded = await seedBase(db.sql, db.url, secret, { users: options.users, pros: options.pros, cohortSize: options.cohortSize });

  const rows: Row[] = [];
  const explains: { scale: string; text: string }[] = [];
  let small: string | null = null;
  if (!options.skipSmall && options.smallRows < options.rows && (wanted("list") || wanted("unread-count"))) {
    const r = await measureScale(seeded, options.smallRows, ["list", "unread-count"], rows);
    small = r.scale;
    explains.push({ scale: r.scale, text: r.explainText });
  }
  const big = await measureScale(
    seeded,
    options.rows,
    ["list", "list-category", "list-search", "unread-count", "pro-status", "ofrep-eval", "ofrep-bulk", "ofrep-bulk-304", "mark-read"],
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
  const verdictList = [
    ...loadVerdicts(rows, big.scale, baseline),
    ...(counts ? [counts] : []),
    ...verdicts(rows, big.scale, small, big.activation, big.push),
    ...ofrepVerdicts(rows, big.scale),
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
