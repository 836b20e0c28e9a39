// One host's cores (issue AE): the real server (server/main.ts) with CLUSTER_WORKERS=1 and =2 on one seeded
// database, each loaded in turn with the from-memory reads (OFREP evaluation, pro-status), interleaved
// twice. Reports req/s, the server processes' CPU per request (the primary and its workers together), the
// load generator's (this process) and the machine's busy share: on a 2-core host the load generator takes
// its share of the same cores. Run alone: node --import tsx bench/cluster.ts [--duration=S] (default 8 s).
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createBenchDatabase } from "./database.js";
import { type LoadResult, runLoad } from "./load.js";
import { freePort } from "./net.js";
import { secret } from "./run-context.js";
import { buildScenarios } from "./scenarios.js";
import { seedBase } from "./seed.js";

const { values } = parseArgs({ options: { duration: { type: "string" } }, strict: false });
const duration = Number(values.duration ?? 8);
const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const log = (m: string) => console.log(`[cluster ${new Date().toISOString().slice(11, 19)}] ${m}`);

/** CPU ms of a process and every descendant (Linux /proc). */
function treeCpuMs(pid: number): number {
  let total = 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    total += (Number(f[11]) + Number(f[12])) * 10;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      for (const child of children ? children.split(" ") : []) total += treeCpuMs(Number(child));
    }
  } catch {
    // gone
  }
  return total;
}

async function start(env: Record<string, string>, workers: number): Promise<{ proc: ChildProcess; origin: string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ["--import", "tsx", fileURLToPath(new URL("../server/main.ts", import.meta.url))], {
    env: { ...process.env, ...env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", CLUSTER_WORKERS: String(workers) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const origin = `http://127.0.0.1:${port}`;
  // Ready when every worker answers: as many distinct processes as workers behind fresh connections is not
  // visible from outside, so wait for readiness, then warm up under load before measuring.
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${origin}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { proc, origin };
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill("SIGKILL");
  throw new Error("server did not get ready");
}

const db = await createBenchDatabase(serverUrl);
const children: ChildProcess[] = [];
try {
  log(`database ${db.name}; seeding`);
  const seeded = await seedBase(db.sql, db.url, secret, { users: 20, pros: 10_000, cohortSize: 500 });
  const env = {
    DATABASE_URL: db.url,
    BETTER_AUTH_SECRET: secret,
    LOG_LEVEL: "silent",
    OFREP_REQUESTS_PER_MINUTE: "100000000",
  };
  const scenarios = buildScenarios({
    hotToken: seeded.hot.token,
    adminToken: seeded.admin.token,
    notificationIds: [],
    proIds: seeded.proIds,
    apiKey: seeded.apiKey,
  }).filter((s) => s.name === "ofrep-eval" || s.name === "pro-status");
  const rows: { workers: number; scenario: string; r: LoadResult }[] = [];
  for (const workers of [1, 2, 1, 2]) {
    const server = await start(env, workers);
    children.push(server.proc);
    for (const scenario of scenarios) {
      const plan = scenario.plan(scenario.name === "pro-status" ? "rest" : "ofrep");
      // Warm-up long enough for a late worker to be listening and its JIT warm.
      await runLoad(server.origin, plan, { connections: 10, duration: 3, warmup: 0 });
      const before = treeCpuMs(server.proc.pid!);
      const r = await runLoad(server.origin, plan, { connections: 10, duration, warmup: 0 });
      const cpu = (treeCpuMs(server.proc.pid!) - before) / r.requests;
      rows.push({ workers, scenario: scenario.name, r: { ...r, cpuMsPerRequest: cpu } });
      log(
        `${workers} worker(s) ${scenario.name.padEnd(10)} ${r.rps.toFixed(0).padStart(6)} req/s  p99 ${r.p99} ms  server CPU ${(cpu * 1000).toFixed(0)} µs/req  load gen ${(r.clientCpuMsPerRequest * 1000).toFixed(0)} µs/req  machine ${((r.machineBusy ?? 0) * 100).toFixed(0)} % busy  errors ${r.errors}`,
      );
    }
    server.proc.kill("SIGTERM");
    await new Promise((r) => server.proc.once("exit", r));
  }
  console.log(
    "\n| workers | scenario | req/s | p99 ms | server CPU µs/req | load gen CPU µs/req | machine busy |\n|---:|---|---:|---:|---:|---:|---:|",
  );
  for (const { workers, scenario, r } of rows) {
    console.log(
      `| ${workers} | ${scenario} | ${r.rps.toFixed(0)} | ${r.p99} | ${((r.cpuMsPerRequest ?? 0) * 1000).toFixed(0)} | ${(r.clientCpuMsPerRequest * 1000).toFixed(0)} | ${((r.machineBusy ?? 0) * 100).toFixed(0)} % |`,
    );
  }
} finally {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await db.drop();
}
process.exit(0);
