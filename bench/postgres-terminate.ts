// `node --import tsx bench/postgres-terminate.ts [--runs N] [--workers W] [--prepare false]`: postgres.js alone
// (no Drizzle, no server) under a database outage, to tell whether a query can wait forever (issue R), and
// whether one that answers can answer wrong: every answer is checked against the rows it must have (the row
// index a query cut off mid-rows left to the next one, patches/postgres+3.4.9.patch). Answers of 2,000 rows
// span several socket reads, so terminations land between them.
//
// Each run opens a pool of 10 (the service's default), keeps W callers busy with a mix of prepared and
// unprepared statements and transactions, and terminates every backend of the database every 50 ms for 2 s,
// three times. Then a watchdog waits up to 15 s for every query to settle and names each that did not. More
// callers than connections matters: queries are then pipelined onto busy connections, which is how one
// reaches a connection between its socket's 'error' and 'close' (patches/postgres+3.4.9.patch).
// The database is DATABASE_URL (or TEST_DATABASE_URL, or the local server's `postgres`); only this
// script's own backends are terminated, by application_name.
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import postgres from "postgres";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    workers: { type: "string", default: "40" },
    prepare: { type: "string", default: "true" },
    rounds: { type: "string", default: "3" },
  },
});
const url = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const runs = Number(values.runs);
const workers = Number(values.workers);
const rounds = Number(values.rounds);
const prepare = values.prepare !== "false";
const WATCHDOG_MS = 15_000;
const STUCK_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type RunResult = { terminated: number; settled: number; failed: number; wrong: string[]; stuck: string[]; settleMs: number };

/** The rows 1..n as `select x from generate_series(1, n) x` must answer them, holes included in the check. */
const isOneTo = (rows: readonly { x?: unknown }[], n: number) =>
  rows.length === n && Array.from({ length: n }, (_, i) => rows[i]?.x === i + 1).every(Boolean);

async function run(): Promise<RunResult> {
  const applicationName = `terminate-${randomBytes(4).toString("hex")}`;
  const sql = postgres(url, {
    max: 10,
    prepare,
    fetch_types: false,
    idle_timeout: 30,
    connect_timeout: 10,
    onnotice: () => {},
    connection: { application_name: applicationName },
  });
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  const pending = new Map<number, { label: string; start: number }>();
  let next = 0;
  let settled = 0;
  let failed = 0;
  const wrong: string[] = [];
  // Each kind's query, and what its answer must be when it answers.
  const kinds: [string, () => Promise<unknown>, (rows: { x?: unknown }[]) => boolean][] = [
    [
      "prepared rows",
      () => sql.unsafe("select x from generate_series(1, $1::int) x", [2000], { prepare: true }),
      (rows) => isOneTo(rows, 2000),
    ],
    [
      "prepared select",
      () => sql.unsafe("select $1::int + 1 as x", [1], { prepare: true }),
      (rows) => rows.length === 1 && rows[0]?.x === 2,
    ],
    [
      "prepared count",
      () => sql.unsafe("select count(*) from pg_class where relname <> $1", ["x"], { prepare: true }),
      (rows) => rows.length === 1,
    ],
    [
      "transaction",
      () =>
        sql.begin(async (tx) => {
          await tx.unsafe("select $1::text as a", ["t"], { prepare: true });
          await tx.unsafe("select 1");
          return [];
        }),
      (rows) => rows.length === 0,
    ],
    ["simple rows", () => sql.unsafe("select x from generate_series(1, 2000) x"), (rows) => isOneTo(rows, 2000)],
  ];
  const track = (label: string, query: () => Promise<unknown>, check: (rows: { x?: unknown }[]) => boolean) => {
    const id = ++next;
    pending.set(id, { label, start: Date.now() });
    return query()
      .then(
        (rows) => {
          settled++;
          if (!check(rows as { x?: unknown }[])) wrong.push(`${label}: ${JSON.stringify(rows).slice(0, 80)}`);
        },
        () => failed++,
      )
      .finally(() => pending.delete(id));
  };
  await sql`select 1`;
  let stop = false;
  const callers = Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      const [label, query, check] = kinds[(w + i) % kinds.length]!;
      await track(label, query, check);
    }
  });

  let terminated = 0;
  for (let round = 0; round < rounds; round++) {
    const until = Date.now() + 2_000;
    while (Date.now() < until) {
      const rows = await admin`
        select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = ${applicationName}`;
      terminated += rows.filter((r) => r.ended).length;
      await sleep(50);
    }
    await sleep(500);
  }

  // The outage is over: every query must now settle, one way or the other.
  stop = true;
  const calm = Date.now();
  while (pending.size > 0 && Date.now() - calm < WATCHDOG_MS) await sleep(50);
  const settleMs = Date.now() - calm;
  const stuck = [...pending.values()]
    .filter((p) => Date.now() - p.start > STUCK_MS)
    .map((p) => `${p.label} (pending ${((Date.now() - p.start) / 1000).toFixed(1)} s)`);
  await admin.end();
  await sql.end({ timeout: 0 });
  if (stuck.length === 0) await Promise.all(callers);
  return { terminated, settled, failed, wrong, stuck, settleMs };
}

console.log(`postgres.js under terminated backends: ${runs} runs, ${workers} callers, pool of 10, prepare: ${prepare}`);
let hung = 0;
let wrongAnswers = 0;
for (let i = 1; i <= runs; i++) {
  const r = await run();
  if (r.stuck.length > 0) hung++;
  wrongAnswers += r.wrong.length;
  console.log(
    `run ${i}: ${r.terminated} backends terminated, ${r.settled} queries answered (${r.wrong.length} wrong), ${r.failed} failed, ` +
      (r.stuck.length ? `NEVER SETTLED: ${r.stuck.join(", ")}` : `all settled ${r.settleMs} ms after the outage`),
  );
  for (const w of r.wrong.slice(0, 3)) console.log(`  wrong: ${w}`);
}
console.log(`${hung} of ${runs} runs left a query that never settled; ${wrongAnswers} answers were wrong`);
process.exit(hung > 0 || wrongAnswers > 0 ? 1 : 0);
