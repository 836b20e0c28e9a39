// `npm run bench -- --only=propagation` (issue W), also part of the full run: how long a change of a pro's
// stored status takes to be served by every product instance, now that instances answer the pros' statuses
// from memory (server/memory/; docs/scaling.md "Reads from memory"). Two instances on one fresh database.
// For each change, a pro not used before:
//   1. each instance is seen answering that pro's current value from memory (memory_reads_total rises over
//      one evaluation), so every change starts from memory that is being served;
//   2. the time t0 is taken just before the change is sent, so the write's own time is counted too;
//   3. each instance is asked for the pro's OFREP evaluation, one request at a time on a keep-alive
//      connection, POLL_MS apart, until it answers the new value.
// The change's propagation is the later instance's first answer with the new value, minus t0.
//
// Three series of changes:
//   - raw SQL: an upsert on the bench's own connection. Neither instance made the write, so neither reads it
//     back at once (server/memory/fence.ts): both must hear of it. The worst case.
//   - admin API: POST /api/admin/restriction/:proId/activate (or /rollback) on instance A, as the seeded
//     admin. A reads its own write at once; B must hear of it.
//   - raw SQL across a LISTEN outage: instance B's LISTEN connection terminated (pg_terminate_backend) just
//     before each change, so B hears nothing of it: B must fall back to the database, then catch up
//     (postgres.js listens again by itself).
// Each instance serves its Prometheus metrics (bench/propagation-server.ts); memory_reads_total is read
// before and after the polling of each change, so the table says how many of the answers came from memory.
import { Client, request } from "undici";
import type { BenchDatabase } from "./database.js";
import { summarize, type Timing } from "./inprocess.js";
import { freePort } from "./net.js";
import type { Verdict } from "./report.js";
import type { Seeded } from "./seed.js";
import { addReads, type MemoryReads, NO_READS, type RunningServer, readsSince, startServer } from "./servers.js";

export type PropagationShape = {
  /** Changes in the raw SQL series, the admin API series and the LISTEN outage series. */
  changes: number;
  adminChanges: number;
  outageChanges: number;
};

export type SeriesKind = "sql" | "admin" | "outage";

export type PropagationSeries = {
  kind: SeriesKind;
  /** Per change: t0 → the later instance's first answer with the new value. */
  timing: Timing;
  /** Per instance (A, B): t0 → its first answer with the new value. */
  instances: Timing[];
  /** t0 → the write's own answer (the commit, or the admin API's answer). */
  write: Timing;
  /** Changes some instance did not serve within CHANGE_TIMEOUT_MS (counted at that bound in the timings). */
  unseen: number;
  /** Each instance's evaluations while it was polled, from memory and from the database. */
  reads: MemoryReads[];
  /** LISTEN connections terminated (the outage series: one before each change). */
  terminated: number;
};

export type PropagationResult = {
  shape: PropagationShape;
  /** Pros with a stored status when the run started (every one held in each instance's memory). */
  storedStatuses: number;
  series: PropagationSeries[];
};

const EVALUATION_PATH = "/ofrep/v1/evaluate/flags/restrict-direct-contact";
/** Pause between one answer and the next question to the same instance. */
const POLL_MS = 2;
/** A change not served by then counts as missed. */
const CHANGE_TIMEOUT_MS = 10_000;
/** How long an instance may take to answer from memory again before a change (after an outage: catching up). */
const READY_TIMEOUT_MS = 15_000;
/** Raw SQL changes made and not recorded first, so connections and code paths are warm. */
const WARMUP_CHANGES = 5;
/** The application_name of each instance's connections (PGAPPNAME): B's LISTEN connection is found by it. */
const APP_NAMES = ["propagation-a", "propagation-b"] as const;
const TITLE: Record<SeriesKind, string> = {
  sql: "raw SQL upsert (neither instance wrote it)",
  admin: "admin API on instance A (activate / rollback)",
  outage: "raw SQL upsert, B's LISTEN connection terminated just before",
};

const now = () => performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Instance = { name: string; server: RunningServer; http: Client; metricsUrl: string };

/** The pro's flag as `instance` evaluates it now (OFREP, the seeded key). */
async function evaluate(instance: Instance, apiKey: string, proId: string): Promise<boolean> {
  const { statusCode, body } = await instance.http.request({
    method: "POST",
    path: EVALUATION_PATH,
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify({ context: { targetingKey: proId } }),
  });
  const answer = (await body.json()) as { value?: unknown };
  if (statusCode !== 200 || typeof answer.value !== "boolean") {
    throw new Error(`propagation: ${instance.name} evaluated ${proId}: HTTP ${statusCode} ${JSON.stringify(answer).slice(0, 300)}`);
  }
  return answer.value;
}

/** memory_reads_total{kind="pro_status"} of `instance`, from its metrics. */
async function proStatusReads(instance: Instance): Promise<MemoryReads> {
  const { statusCode, body } = await request(instance.metricsUrl);
  const text = await body.text();
  if (statusCode !== 200) throw new Error(`propagation: ${instance.name}'s metrics answered HTTP ${statusCode}`);
  const reads: MemoryReads = { memory: 0, database: 0 };
  for (const [, labels, value] of text.matchAll(/^memory_reads_total\{([^}]*)\} (\S+)$/gm)) {
    const source = /source="(\w+)"/.exec(labels!)?.[1];
    if (labels!.includes('kind="pro_status"') && (source === "memory" || source === "database")) reads[source] = Number(value);
  }
  return reads;
}

/** Waits until `instance` answers the pro from memory; its answer then, and its counts after that answer. */
async function answeredFromMemory(instance: Instance, apiKey: string, proId: string): Promise<{ value: boolean; reads: MemoryReads }> {
  const deadline = now() + READY_TIMEOUT_MS;
  for (;;) {
    const before = await proStatusReads(instance);
    const value = await evaluate(instance, apiKey, proId);
    const reads = await proStatusReads(instance);
    if (reads.memory > before.memory) return { value, reads };
    if (now() > deadline) throw new Error(`propagation: ${instance.name} did not answer from memory for ${READY_TIMEOUT_MS / 1000} s`);
    await sleep(20);
  }
}

/** Asks `instance` until it answers `value`: the time of that answer after t0 (null when it never did). */
async function firstServed(instance: Instance, apiKey: string, proId: string, value: boolean, t0: number): Promise<number | null> {
  while (now() - t0 < CHANGE_TIMEOUT_MS) {
    if ((await evaluate(instance, apiKey, proId)) === value) return now() - t0;
    await sleep(POLL_MS);
  }
  return null;
}

export async function measurePropagation(
  db: BenchDatabase,
  productEnv: Record<string, string>,
  seeded: Seeded,
  shape: PropagationShape,
  log: (message: string) => void,
): Promise<PropagationResult> {
  const sql = db.sql;
  const [{ stored } = { stored: 0 }] = await sql<{ stored: number }[]>`select count(*)::int as stored from pro_restriction_status`;
  const instances: Instance[] = [];
  try {
    const started = await Promise.all(
      APP_NAMES.map(async (appName, i): Promise<Instance> => {
        const metricsPort = await freePort();
        const name = `product-${"AB"[i]}`;
        const env = { ...productEnv, METRICS_PORT: String(metricsPort), PGAPPNAME: appName };
        const server = await startServer(name, "./propagation-server.ts", env);
        return {
          name,
          server,
          http: new Client(server.origin, { keepAliveTimeout: 60_000 }),
          metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
        };
      }),
    );
    instances.push(...started);
    const a = instances[0]!;
    log(`propagation: two product instances on ${db.name}, ${stored.toLocaleString("en")} stored statuses in each one's memory`);

    let nextPro = 0;
    const writes: Record<SeriesKind, (proId: string, value: boolean) => Promise<unknown>> = {
      sql: (proId, value) => sql`
        insert into pro_restriction_status (pro_id, restriction_active) values (${proId}, ${value})
        on conflict (pro_id) do update set restriction_active = excluded.restriction_active, updated_at = now()`,
      admin: async (proId, value) => {
        const { statusCode, body } = await request(`${a.server.origin}/api/admin/restriction/${proId}/${value ? "activate" : "rollback"}`, {
          method: "POST",
          headers: { authorization: `Bearer ${seeded.admin.token}` },
        });
        const text = await body.text();
        if (statusCode !== 200)
          throw new Error(`propagation: the admin API on ${a.name} answered HTTP ${statusCode}: ${text.slice(0, 300)}`);
      },
      outage: (proId, value) => writes.sql(proId, value),
    };
    /** B's LISTEN connection, ended by the server: B hears no announcement until postgres.js listens again. */
    const terminateListen = async () => {
      const rows = await sql<{ ended: boolean }[]>`
        select pg_terminate_backend(pid) as ended from pg_stat_activity
        where datname = current_database() and application_name = ${APP_NAMES[1]} and query ilike 'listen %'`;
      return rows.filter((r) => r.ended).length;
    };

    /** One change of a fresh pro's flag to the opposite of what both instances answer from memory. */
    const change = async (kind: SeriesKind) => {
      const proId = seeded.proIds[nextPro++ % seeded.proIds.length]!;
      const ready = await Promise.all(instances.map((instance) => answeredFromMemory(instance, seeded.apiKey, proId)));
      if (ready[0]!.value !== ready[1]!.value) throw new Error(`propagation: the instances disagree on ${proId} before its change`);
      const value = !ready[0]!.value;
      const terminated = kind === "outage" ? await terminateListen() : 0;
      const t0 = now();
      const [write, ...served] = await Promise.all([
        writes[kind](proId, value).then(() => now() - t0),
        ...instances.map((instance) => firstServed(instance, seeded.apiKey, proId, value, t0)),
      ]);
      const after = await Promise.all(instances.map(proStatusReads));
      return { write, served, terminated, reads: ready.map((r, i) => readsSince(r.reads, after[i]!)) };
    };

    const series: PropagationSeries[] = [];
    const measure = async (kind: SeriesKind, count: number) => {
      const latest: number[] = [];
      const each: number[][] = instances.map(() => []);
      const write: number[] = [];
      let reads: MemoryReads[] = instances.map(() => NO_READS);
      let unseen = 0;
      let terminated = 0;
      for (let n = 0; n < count; n++) {
        const c = await change(kind);
        const times = c.served.map((t) => t ?? CHANGE_TIMEOUT_MS);
        if (c.served.includes(null)) unseen++;
        latest.push(Math.max(...times));
        times.forEach((t, i) => void each[i]!.push(t));
        write.push(c.write);
        reads = reads.map((sum, i) => addReads(sum, c.reads[i]!));
        terminated += c.terminated;
      }
      const result: PropagationSeries = {
        kind,
        timing: summarize(latest),
        instances: each.map(summarize),
        write: summarize(write),
        unseen,
        reads,
        terminated,
      };
      series.push(result);
      log(
        `propagation: ${TITLE[kind]}: ${count} changes, p50 ${fmt(result.timing.p50)} / p99 ${fmt(result.timing.p99)} / max ${fmt(result.timing.max)} ms; ${unseen} not served in ${CHANGE_TIMEOUT_MS / 1000} s; ${memoryShare(result)} of the polled answers from memory${kind === "outage" ? `; ${terminated} LISTEN connections terminated` : ""}`,
      );
    };

    for (let n = 0; n < WARMUP_CHANGES; n++) await change("sql");
    await measure("sql", shape.changes);
    await measure("admin", shape.adminChanges);
    await measure("outage", shape.outageChanges);
    return { shape, storedStatuses: stored, series };
  } finally {
    await Promise.allSettled(instances.map((instance) => instance.http.close()));
    await Promise.allSettled(instances.map((instance) => instance.server.stop()));
  }
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

const totalReads = (s: PropagationSeries) => s.reads.reduce(addReads, NO_READS);

/** The share of the polled evaluations answered from memory, both instances together. */
function memoryShare(s: PropagationSeries): string {
  const { memory, database } = totalReads(s);
  return memory + database ? `${fmt((100 * memory) / (memory + database))} %` : "-";
}

export function propagationTable(r: PropagationResult): string {
  const lines = [
    "| change | changes | **p50 / p99 / max ms** | A p50 / p99 ms | B p50 / p99 ms | write p50 / p99 ms | not served in 10 s | polled answers from memory (A, B) |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
  ];
  for (const s of r.series) {
    const [a, b] = s.instances as [Timing, Timing];
    const { memory, database } = totalReads(s);
    const each = s.reads.map((x) => `${fmt((100 * x.memory) / Math.max(1, x.memory + x.database))} %`).join(", ");
    lines.push(
      `| ${TITLE[s.kind]}${s.kind === "outage" ? ` (${s.terminated} terminated)` : ""} | ${s.timing.samples} | **${fmt(s.timing.p50)} / ${fmt(s.timing.p99)} / ${fmt(s.timing.max)}** | ${fmt(a.p50)} / ${fmt(a.p99)} | ${fmt(b.p50)} / ${fmt(b.p99)} | ${fmt(s.write.p50, 1)} / ${fmt(s.write.p99, 1)} | ${s.unseen} | ${memoryShare(s)} of ${memory + database} (${each}) |`,
    );
  }
  lines.push(
    "",
    `Two product instances on one database, ${r.storedStatuses.toLocaleString("en")} stored statuses; each change flips a pro not changed before, once both instances answer it from memory. Times from just before the write is sent to each instance's first OFREP answer with the new value (asked every ~${POLL_MS} ms plus a round trip, one request at a time); a change's time is the later instance's.`,
  );
  return lines.join("\n");
}

export function propagationVerdicts(r: PropagationResult): Verdict[] {
  const target: Record<SeriesKind, string> = {
    sql: "a pro's status changed by raw SQL is served by both instances: p99 ≤ 1 s",
    admin: "a pro's status changed through instance A's admin API is served by both instances: p99 ≤ 1 s",
    outage:
      "a pro's status changed by raw SQL across a LISTEN outage (B's connection terminated just before) is served by both instances: p99 ≤ 1 s",
  };
  return r.series.map((s) => ({
    target: target[s.kind],
    met: s.timing.p99 <= 1000 && s.unseen === 0 && (s.kind !== "outage" || s.terminated === s.timing.samples),
    detail: `p50 ${fmt(s.timing.p50)} / p99 ${fmt(s.timing.p99)} / max ${fmt(s.timing.max)} ms over ${s.timing.samples} changes (B alone: p99 ${fmt(s.instances[1]!.p99)} ms); ${s.unseen} not served in ${CHANGE_TIMEOUT_MS / 1000} s; ${memoryShare(s)} of the polled answers from memory${s.kind === "outage" ? `; ${s.terminated} LISTEN connections terminated` : ""}`,
  }));
}
