// `npm run bench -- --only=write-ceiling` (issue V): single-user commits that change an unread count, at
// saturation, with and without announcements, side by side on one fresh database. Each request is
// PATCH /api/notifications/:id/read of an UNREAD notification: request i goes to user i mod 1,000 and that
// user's next unread notification (per-user cursors shared by every run, so nothing is marked twice), so
// every request commits one row and lowers its user's count by one.
//
// What the database does with an announcement is switched by replacing the SQL function `announce` that
// every trigger calls (migration 0018), from here, with CREATE OR REPLACE FUNCTION; the migration's own
// definition (read back with pg_get_functiondef before anything) is restored at the end:
//   - none:    `announce` does nothing: the floor server (bench/floor.ts, hand-written SQL, no announcement
//              at all: the physical limit of these fsync'd single-row commits here), before and after the
//              product's runs, and the product with nothing to announce (its own ceiling);
//   - notify:  a pg_notify per changed user inside the writer's transaction, as before the outbox (the
//              notify lock held through the commit's flush);
//   - outbox:  the migration's: one row in change_outbox, announced in batches by the relay of one of the
//              product instances (db/outbox-relay.ts).
// The product runs as two instances (two processes, each with its pool, LISTEN connection and relay
// candidate), the load split across them (two autocannon runs at once, half the connections each), with
// 1,000 live unread-count streams open, one per user, 500 on each instance (bench/stream-clients.ts, a
// process of its own, opened again for every product run).
//
// Delivery (notify and outbox): after the run settles, each stream's last count must equal its user's count
// in the database, and every user whose count changed must have had an event. Latency: each answered
// request's change is ranked among its user's changes of the run by read_at (the commit order: one user's
// requests are ~1,000 apart), so its count after the commit is known exactly; its latency is from the HTTP
// answer (autocannon's onResponse) to the first event on that user's stream carrying that count or lower.
// A LISTEN of the bench's own counts the NOTIFYs (and the ids each carried) on unread_count; the outbox's
// backlog is sampled during the outbox run. Last, with the outbox on, a cohort of 500 pros is activated
// through the product's procedure (in this process, as bench/ofrep-streams.ts does): the bench's LISTEN
// must hear one NOTIFY on restriction_flags for it, not 500. Very last, one UPDATE marks one notification of
// every user at once (as raw SQL or a seed writes: one outbox row naming 1,000 users): every stream must end
// on the database's count.
import postgres from "postgres";
import { createDb } from "../db/client.js";
import { SESSION_LIFETIME } from "../server/auth/better-auth.js";
import { createContextInner } from "../server/context.js";
import { announcedItems } from "../server/live/change-feed.js";
import { FLAGS_CHANNEL } from "../server/ofrep/changes.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import type { BenchDatabase } from "./database.js";
import { summarize, type Timing } from "./inprocess.js";
import { type LoadResult, type RequestPlan, runLoad } from "./load.js";
import type { Verdict } from "./report.js";
import { ADMIN_EMAIL, seedPros } from "./seed.js";
import { type RunningServer, startServer } from "./servers.js";
import type { ClientStream, StreamReport } from "./stream-clients.js";
import { startClients } from "./streams.js";

export type WriteCeilingShape = {
  users: number;
  /** Unread notifications seeded per user: enough for every run, never marked twice. */
  notificationsPerUser: number;
  /** autocannon connections: all on the floor; half on each product instance. */
  connections: number;
  duration: number;
  warmup: number;
  /** Pros of the cohort activated once with the outbox on. */
  cohortSize: number;
  floorEnv: Record<string, string>;
  cpuProfDir?: string;
};

/** What `announce` does during a run. */
export type AnnounceMode = "none" | "notify" | "outbox";

export type CeilingRun = LoadResult & {
  target: string;
  server: "floor" | "product";
  announce: AnnounceMode;
  instances: number;
  /** Each instance's answers per second (the run's rps is their sum). */
  rpsPerInstance: number[];
  /** Unread counts lowered in the database over the run, warm-up and the check request included (one per commit). */
  changes: number;
};

export type Delivery = {
  announce: AnnounceMode;
  streams: number;
  /** Unread counts lowered in the database over the run (warm-up included). */
  changes: number;
  /** Answers recorded (2xx), whose latency is measured. */
  answered: number;
  usersChanged: number;
  usersWithEvents: number;
  /** Users whose count changed and whose stream received nothing (must be 0). */
  usersChangedWithoutEvent: number;
  events: number;
  /** Users whose stream's last count (or its count on connect when none came) is not the database's count (must be 0). */
  wrongFinal: number;
  wrongSamples: string[];
  /** HTTP answer → first event carrying that change's count or lower (clamped at 0). */
  latency: Timing;
  /** Answered changes whose count never reached the stream. */
  unmatched: number;
  /** The bench's own LISTEN on unread_count over the run and its settling. */
  notifies: number;
  notifiedItems: number;
  maxItemsPerNotify: number;
  /** The outbox run: rows waiting and the oldest's age, sampled every OUTBOX_SAMPLE_MS. */
  outbox: { samples: number; maxRows: number; maxLagSeconds: number; rowsAtEnd: number } | null;
  /** From the end of the load to the report (outbox empty, then SETTLE_MS). */
  settleMs: number;
  endedEarly: number;
};

export type CohortCheck = {
  pros: number;
  /** NOTIFYs heard on restriction_flags from the call until 2 s after its answer, and their payloads. */
  notifies: number;
  payloads: string[];
  activationMs: number;
  /** Call → the first NOTIFY heard. */
  heardAfterMs: number;
};

/**
 * One statement lowering every user's count at once (as raw SQL or a seed writes): one outbox row naming
 * every user, announced by the relay in one batch. Every stream must show the database's count after it.
 */
export type WideCheck = {
  users: number;
  /** Streams whose last count is the database's WIDE_WAIT_MS after the commit. */
  streamsRight: number;
  /** Outbox rows still waiting then (the relay could not announce them). */
  outboxRowsLeft: number;
  /** NOTIFYs heard on unread_count meanwhile, and the ids they carried. */
  notifies: number;
  notifiedItems: number;
};

export type WriteCeilingResult = {
  shape: Omit<WriteCeilingShape, "floorEnv" | "cpuProfDir">;
  runs: CeilingRun[];
  deliveries: Delivery[];
  cohort: CohortCheck | null;
  wide: WideCheck | null;
  /** Requests that found their user's notifications used up (marked an already-read one): 0 unless the seed was short. */
  exhausted: number;
};

const USER_PREFIX = "wc-user-";
const OPEN_CONCURRENCY = 50;
const OPEN_TIMEOUT_MS = 180_000;
const SETTLE_MS = 2_000;
const OUTBOX_DRAIN_TIMEOUT_MS = 20_000;
const OUTBOX_SAMPLE_MS = 200;
const WIDE_WAIT_MS = 3_000;
const ADMIN = { id: "bench-ceiling-admin", name: "bench-admin", email: ADMIN_EMAIL, role: "admin" };
const WHAT: Record<AnnounceMode, string> = {
  none: "no announcement",
  notify: "NOTIFY at commit (before V)",
  outbox: "outbox + relay (V)",
};

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The versions of `announce` the bench switches between; `outbox` is the migration's own, read back at the start. */
const ANNOUNCE_SQL: Record<Exclude<AnnounceMode, "outbox">, string> = {
  none: `create or replace function announce(channel text, payloads text[]) returns int language plpgsql as $$
    begin return 0; end $$`,
  notify: `create or replace function announce(channel text, payloads text[]) returns int language plpgsql as $$
    begin
      perform pg_notify(channel, json_build_array(item)::text) from unnest(payloads) as item;
      return coalesce(cardinality(payloads), 0);
    end $$`,
};

/** Notifications each user needs: every run at up to `maxRate` commits/s, with a margin. */
export function notificationsPerUser(runs: number, seconds: number, users: number, maxRate = 5000): number {
  return Math.max(50, Math.ceil((runs * seconds * maxRate) / users));
}

type Seeded = { userIds: string[]; tokens: string[]; unread: string[][]; cohortId: string };

/** Users, one session each, `perUser` unread notifications each (one INSERT), one cohort of pros, an admin. */
async function seed(db: BenchDatabase, users: number, perUser: number, cohortSize: number): Promise<Seeded> {
  const sql = db.sql;
  await sql`
    insert into users (id, name, email)
    select ${USER_PREFIX} || lpad(i::text, 4, '0'), 'Ceiling user ' || i, 'ceiling-' || i || '@bench.test'
    from generate_series(0, ${users - 1}::int) i`;
  // The table keeps each token's SHA-256 (server/auth/hashed-session-tokens.ts); the raw tokens are the callers'.
  const sessions = await sql<{ userId: string; token: string }[]>`
    with raw as (
      select i, ${USER_PREFIX} || lpad(i::text, 4, '0') as user_id, md5(random()::text || i) as token
      from generate_series(0, ${users - 1}::int) i
    ), made as (
      insert into sessions (id, token, user_id, expires_at)
      select 'wc-session-' || i, encode(sha256(convert_to(token, 'UTF8')), 'hex'), user_id,
             now() + make_interval(secs => ${SESSION_LIFETIME.expiresInSeconds}::int)
      from raw
    )
    select user_id as "userId", token from raw order by i`;
  await sql`
    insert into notifications (user_id, event_type, category, title, body)
    select ${USER_PREFIX} || lpad(u::text, 4, '0'), 'message.received', 'messages', 'Bench: message ' || n, 'Something to read'
    from generate_series(1, ${perUser}::int) n cross join generate_series(0, ${users - 1}::int) u`;
  const rows = await sql<{ user_id: string; id: string }[]>`
    select user_id, id from notifications where user_id like ${`${USER_PREFIX}%`} order by user_id, date_created, id`;
  const index = new Map(sessions.map((s, i) => [s.userId, i]));
  const unread: string[][] = sessions.map(() => []);
  for (const r of rows) unread[index.get(r.user_id)!]!.push(r.id);
  await sql`insert into users (id, name, email, role) values (${ADMIN.id}, ${ADMIN.name}, ${ADMIN.email}, ${ADMIN.role})`;
  const { cohortIds } = await seedPros(sql, { pros: cohortSize, cohortSize });
  await sql.unsafe("vacuum (analyze)");
  return { userIds: sessions.map((s) => s.userId), tokens: sessions.map((s) => s.token), unread, cohortId: cohortIds[0]! };
}

async function unreadCounts(sql: postgres.Sql): Promise<Map<string, number>> {
  const rows = await sql<{ user_id: string; unread: number }[]>`
    select user_id, coalesce(sum(unread), 0)::int as unread from notification_counts
    where user_id like ${`${USER_PREFIX}%`} group by user_id`;
  return new Map(rows.map((r) => [r.user_id, r.unread]));
}

const totalOf = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

async function outboxRows(sql: postgres.Sql): Promise<{ rows: number; lag: number }> {
  const [row] = await sql<{ rows: number; lag: number }[]>`
    select count(*)::int as rows, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as lag from change_outbox`;
  return row!;
}

export async function measureWriteCeiling(
  db: BenchDatabase,
  productEnv: Record<string, string>,
  shape: WriteCeilingShape,
  log: (message: string) => void,
): Promise<WriteCeilingResult> {
  const sql = db.sql;
  const [fn] = await sql<{ def: string }[]>`select pg_get_functiondef('announce(text, text[])'::regprocedure) as def`;
  const migrationAnnounce = fn!.def;
  const setAnnounce = async (mode: AnnounceMode) => {
    await sql.unsafe(mode === "outbox" ? migrationAnnounce : ANNOUNCE_SQL[mode]);
    log(`write-ceiling: announce() now: ${WHAT[mode]}`);
  };

  // The seed announces nothing: its one INSERT for every user is set-up, not the workload measured.
  await setAnnounce("none");
  log(`write-ceiling: seeding ${shape.users} users, one session and ${shape.notificationsPerUser} unread notifications each`);
  const seeded = await seed(db, shape.users, shape.notificationsPerUser, shape.cohortSize);
  const { userIds, tokens, unread } = seeded;

  // Request i: user i mod users, that user's next unread notification; cursors shared by every run.
  const cursor = new Int32Array(userIds.length);
  let sequence = 0;
  let exhausted = 0;
  const nextMark = () => {
    const u = sequence++ % userIds.length;
    const list = unread[u]!;
    const c = cursor[u]!;
    cursor[u] = c + 1;
    if (c >= list.length) exhausted++;
    return { u, id: list[Math.min(c, list.length - 1)]! };
  };
  type Answer = { u: number; id: string; at: number };
  let answers: Answer[] = [];
  const plan: RequestPlan = {
    method: "PATCH",
    path: "/api/notifications/00000000-0000-0000-0000-000000000000/read",
    headers: {},
    next: (_i, context) => {
      const mark = nextMark();
      context.mark = mark;
      return { path: `/api/notifications/${mark.id}/read`, headers: { authorization: `Bearer ${tokens[mark.u]}` } };
    },
    onResponse: (status, context) => {
      const mark = context.mark as { u: number; id: string } | undefined;
      if (status >= 200 && status < 300 && mark) answers.push({ ...mark, at: now() });
    },
  };
  /** One request through `server` outside the load: it must succeed (the path and the session work there). */
  const check = async (server: RunningServer) => {
    const mark = nextMark();
    const response = await fetch(`${server.origin}/api/notifications/${mark.id}/read`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${tokens[mark.u]}` },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(`write-ceiling: ${server.name} answered the mark-read check ${response.status}: ${text.slice(0, 300)}`);
  };

  const listener = postgres(db.url, { max: 1, onnotice: () => {} });
  const heard: { at: number; items: number }[] = [];
  const flags: { at: number; payload: string }[] = [];
  await listener.listen("unread_count", (payload) => void heard.push({ at: now(), items: announcedItems(payload).length }));
  await listener.listen(FLAGS_CHANNEL, (payload) => void flags.push({ at: now(), payload }));

  const servers: RunningServer[] = [];
  let clients: ReturnType<typeof startClients> | undefined;
  const runs: CeilingRun[] = [];
  const deliveries: Delivery[] = [];
  let cohort: CohortCheck | null = null;
  let wide: WideCheck | null = null;
  try {
    const [floor, ...products] = await Promise.all([
      startServer("floor", "./floor.ts", shape.floorEnv, { cpuProfDir: shape.cpuProfDir }),
      startServer("product-1", "./product-server.ts", productEnv, { cpuProfDir: shape.cpuProfDir }),
      startServer("product-2", "./product-server.ts", productEnv, { cpuProfDir: shape.cpuProfDir }),
    ]);
    servers.push(floor!, ...products);

    /** One run: the load on `targets` at once (the connections split between them); the counts lowered. */
    const run = async (server: CeilingRun["server"], announce: AnnounceMode, targets: RunningServer[]): Promise<CeilingRun> => {
      const before = totalOf(await unreadCounts(sql));
      for (const target of targets) await check(target);
      const connections = Math.max(1, Math.floor(shape.connections / targets.length));
      const results = await Promise.all(
        targets.map((t) => runLoad(t.origin, plan, { connections, duration: shape.duration, warmup: shape.warmup, pid: t.pid })),
      );
      const after = totalOf(await unreadCounts(sql));
      const requests = results.reduce((n, r) => n + r.requests, 0);
      const cpu = results.every((r) => r.cpuMsPerRequest !== null)
        ? results.reduce((n, r) => n + r.cpuMsPerRequest! * r.requests, 0) / Math.max(1, requests)
        : null;
      const result: CeilingRun = {
        target: `${server === "floor" ? "floor" : `product × ${targets.length}`}, ${WHAT[announce]}`,
        server,
        announce,
        instances: targets.length,
        rps: results.reduce((n, r) => n + r.rps, 0),
        rpsPerInstance: results.map((r) => r.rps),
        // Two histograms cannot be merged from their percentiles: the answers' p50 weighted by requests, the worse p99.
        p50: results.reduce((n, r) => n + r.p50 * r.requests, 0) / Math.max(1, requests),
        p99: Math.max(...results.map((r) => r.p99)),
        errors: results.reduce((n, r) => n + r.errors, 0),
        requests,
        cpuMsPerRequest: cpu,
        // The runs overlap in this one process: each one's load-generator CPU is the whole process's meanwhile.
        clientCpuMsPerRequest: Math.max(...results.map((r) => r.clientCpuMsPerRequest * r.requests)) / Math.max(1, requests),
        machineBusy: results[0]!.machineBusy,
        changes: before - after,
      };
      log(
        `write-ceiling: ${result.target.padEnd(48)} ${result.rps.toFixed(0).padStart(6)} req/s (${result.rpsPerInstance.map((r) => r.toFixed(0)).join(" + ")})  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  errors ${result.errors}  ${result.changes} counts lowered  cpu ${cpu?.toFixed(2) ?? "?"} ms/req`,
      );
      runs.push(result);
      return result;
    };

    const streams: Extract<ClientStream, { kind: "unread-count" }>[] = userIds.map((follows, i) => ({
      kind: "unread-count",
      follows,
      token: tokens[i]!,
    }));
    /** A new clients' process with every user's stream open, spread evenly over the instances. */
    const openStreams = async () => {
      const c = startClients();
      clients = c;
      const per = Math.ceil(streams.length / products.length);
      for (const [k, product] of products.entries()) {
        const part = streams.slice(k * per, (k + 1) * per);
        c.send({ type: "open", origin: product.origin, streams: part, concurrency: OPEN_CONCURRENCY, timeoutMs: OPEN_TIMEOUT_MS });
        const opened = await c.answer("opened", OPEN_TIMEOUT_MS + 10_000);
        const expected = Math.min(streams.length, (k + 1) * per);
        if (!opened || opened.ok !== expected) {
          throw new Error(`opened ${opened?.ok ?? 0} of ${expected} streams: ${opened?.failures.join("; ") ?? "no answer"}`);
        }
      }
      return c;
    };

    const measureProduct = async (announce: AnnounceMode) => {
      await setAnnounce(announce);
      const opening = now();
      const c = await openStreams();
      log(
        `write-ceiling: ${streams.length} unread-count streams open (${products.length} instances) in ${((now() - opening) / 1000).toFixed(1)} s`,
      );
      await sleep(500);
      const before = await unreadCounts(sql);
      const [{ start } = { start: new Date(0) }] = await sql<{ start: Date }[]>`select now() as start`;
      const heardBefore = heard.length;
      answers = [];
      const samples: { rows: number; lag: number }[] = [];
      let sampling = announce === "outbox";
      const sampler = (async () => {
        while (sampling) {
          samples.push(await outboxRows(sql));
          await sleep(OUTBOX_SAMPLE_MS);
        }
      })();
      await run("product", announce, products);
      sampling = false;
      await sampler;
      const loadEnded = now();
      // Settle: the relay empties the outbox (when on), then the last reads of the counts reach the streams.
      let atEnd = await outboxRows(sql);
      while (announce === "outbox" && atEnd.rows > 0 && now() - loadEnded < OUTBOX_DRAIN_TIMEOUT_MS) {
        await sleep(50);
        atEnd = await outboxRows(sql);
      }
      if (atEnd.rows > 0) {
        log(
          `write-ceiling: ${atEnd.rows} outbox rows still waiting ${OUTBOX_DRAIN_TIMEOUT_MS / 1000} s after the load, the oldest ${atEnd.lag.toFixed(1)} s old: the relay is not draining`,
        );
      }
      await sleep(SETTLE_MS);
      const after = await unreadCounts(sql);
      c.send({ type: "report" });
      const report = await c.answer("report", 30_000);
      if (!report) throw new Error("the stream clients did not report");
      const settleMs = now() - loadEnded;
      // The commit order of each user's changes in this run (read_at is its transaction's start).
      const ranks = await sql<{ id: string; rank: number }[]>`
        select id, row_number() over (partition by user_id order by read_at, id)::int as rank
        from notifications where user_id like ${`${USER_PREFIX}%`} and read_at >= ${start}`;
      const rankOf = new Map(ranks.map((r) => [r.id, r.rank]));
      const heardNow = heard.slice(heardBefore);
      const delivery: Delivery = {
        announce,
        streams: report.streams.length,
        changes: totalOf(before) - totalOf(after),
        answered: answers.length,
        notifies: heardNow.length,
        notifiedItems: heardNow.reduce((n, h) => n + h.items, 0),
        maxItemsPerNotify: Math.max(0, ...heardNow.map((h) => h.items)),
        outbox:
          announce === "outbox"
            ? {
                samples: samples.length,
                maxRows: Math.max(0, ...samples.map((s) => s.rows)),
                maxLagSeconds: Math.max(0, ...samples.map((s) => s.lag)),
                rowsAtEnd: atEnd.rows,
              }
            : null,
        settleMs,
        endedEarly: report.ended,
        ...compare(report.streams, before, after, answers, rankOf, userIds),
      };
      deliveries.push(delivery);
      log(
        `write-ceiling: ${WHAT[announce]}: ${delivery.changes} changes, ${delivery.events} events, ${delivery.usersChangedWithoutEvent} changed users without an event, ${delivery.wrongFinal} wrong final counts; answer → event p50 ${delivery.latency.p50.toFixed(0)} / p99 ${delivery.latency.p99.toFixed(0)} / max ${delivery.latency.max.toFixed(0)} ms (${delivery.unmatched} unmatched); ${delivery.notifies} NOTIFYs carrying ${delivery.notifiedItems} ids${delivery.outbox ? `; outbox max ${delivery.outbox.maxRows} rows, max lag ${delivery.outbox.maxLagSeconds.toFixed(2)} s` : ""}`,
      );
      return c;
    };

    /** One UPDATE marking each user's next unread notification: every stream must end on the database's count. */
    const wideStatement = async (c: Awaited<ReturnType<typeof openStreams>>): Promise<WideCheck> => {
      const ids = userIds.map(() => nextMark().id);
      const heardBefore = heard.length;
      await sql`update notifications set read_at = now() where id = any(${ids}::uuid[]) and read_at is null`;
      await sleep(WIDE_WAIT_MS);
      const after = await unreadCounts(sql);
      c.send({ type: "report" });
      const report = await c.answer("report", 30_000);
      if (!report) throw new Error("the stream clients did not report");
      const lastOf = new Map(
        report.streams.map((st) => [st.follows, st.events.length ? Number(st.events[st.events.length - 1]![0]) : null]),
      );
      const heardNow = heard.slice(heardBefore);
      const check: WideCheck = {
        users: ids.length,
        streamsRight: userIds.filter((u) => lastOf.get(u) === after.get(u)).length,
        outboxRowsLeft: (await outboxRows(sql)).rows,
        notifies: heardNow.length,
        notifiedItems: heardNow.reduce((n, h) => n + h.items, 0),
      };
      log(
        `write-ceiling: one statement for ${check.users} users: ${check.streamsRight} streams show the database's count ${WIDE_WAIT_MS / 1000} s later; ${check.notifies} NOTIFYs carrying ${check.notifiedItems} ids; ${check.outboxRowsLeft} outbox rows left`,
      );
      return check;
    };

    // The floor first, with nothing announced.
    await setAnnounce("none");
    await run("floor", "none", [floor!]);
    // The product: its own ceiling, then before V, then V.
    for (const mode of ["none", "notify", "outbox"] as const) {
      const c = await measureProduct(mode);
      if (mode === "outbox") {
        cohort = await activateCohort(db.url, seeded.cohortId, shape.cohortSize, flags, log);
        // Last: should the relay fail on it, nothing measured after would be announced.
        wide = await wideStatement(c);
      }
      await c.stop();
      clients = undefined;
    }
    // The floor again: how much the machine moved meanwhile.
    await setAnnounce("none");
    await run("floor", "none", [floor!]);
    const { floorEnv: _, cpuProfDir: __, ...rest } = shape;
    return { shape: rest, runs, deliveries, cohort, wide, exhausted };
  } finally {
    await sql.unsafe(migrationAnnounce).catch((err: Error) => log(`write-ceiling: could not restore announce(): ${err.message}`));
    await clients?.stop();
    await Promise.allSettled(servers.map((s) => s.stop()));
    await listener.end({ timeout: 5 });
  }
}

/** Each user's stream against the database, and every answered change's latency to its stream. */
function compare(
  reports: StreamReport[],
  before: Map<string, number>,
  after: Map<string, number>,
  answers: { u: number; id: string; at: number }[],
  rankOf: Map<string, number>,
  userIds: string[],
) {
  const eventsOf = new Map(reports.map((s) => [s.follows, s.events]));
  let usersChanged = 0;
  let usersWithEvents = 0;
  let usersChangedWithoutEvent = 0;
  let events = 0;
  let wrongFinal = 0;
  const wrongSamples: string[] = [];
  for (const user of userIds) {
    const list = eventsOf.get(user) ?? [];
    const k = before.get(user) ?? 0;
    const final = after.get(user) ?? 0;
    events += list.length;
    if (list.length) usersWithEvents++;
    if (k !== final) {
      usersChanged++;
      if (!list.length) usersChangedWithoutEvent++;
    }
    const last = list.length ? Number(list[list.length - 1]![0]) : k;
    if (last !== final || !eventsOf.has(user)) {
      wrongFinal++;
      if (wrongSamples.length < 10) wrongSamples.push(`${user}: stream ${last}, database ${final} (was ${k}, ${list.length} events)`);
    }
  }
  const latencies: number[] = [];
  let unmatched = 0;
  for (const a of answers) {
    const user = userIds[a.u]!;
    const rank = rankOf.get(a.id);
    if (rank === undefined) continue; // not marked in this run (cannot happen for an answered request)
    const count = Math.max(0, (before.get(user) ?? 0) - rank);
    const first = (eventsOf.get(user) ?? []).find(([value]) => Number(value) <= count);
    if (!first) unmatched++;
    else latencies.push(Math.max(0, first[1] - a.at));
  }
  return {
    usersChanged,
    usersWithEvents,
    usersChangedWithoutEvent,
    events,
    wrongFinal,
    wrongSamples,
    latency: summarize(latencies),
    unmatched,
  };
}

/** The product's restriction.activateCohort of one cohort: the NOTIFYs the bench hears on restriction_flags for it. */
async function activateCohort(
  databaseUrl: string,
  cohortId: string,
  pros: number,
  flags: { at: number; payload: string }[],
  log: (message: string) => void,
): Promise<CohortCheck> {
  const handle = await createDb({ databaseUrl, maxConnections: 2 });
  try {
    const caller = createCaller(createContextInner({ db: handle.db, push: createPushService({ vapid: null }) }, { user: ADMIN }));
    const heardBefore = flags.length;
    const sent = now();
    const result = await caller.restriction.activateCohort({ id: cohortId });
    const answered = now();
    if (result.status !== "active") throw new Error(`activation of cohort ${cohortId} left it ${result.status}`);
    await sleep(2_000);
    const heardNow = flags.slice(heardBefore);
    const check: CohortCheck = {
      pros,
      notifies: heardNow.length,
      payloads: heardNow.map((h) => h.payload),
      activationMs: answered - sent,
      heardAfterMs: heardNow.length ? heardNow[0]!.at - sent : Number.NaN,
    };
    log(`write-ceiling: cohort of ${pros} pros activated: ${check.notifies} NOTIFY on ${FLAGS_CHANNEL} (${check.payloads.join(", ")})`);
    return check;
  } finally {
    await handle.close();
  }
}

const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits));

/** The floor's req/s: the mean of its runs before and after the product's. */
function floorRps(r: WriteCeilingResult): number {
  const floors = r.runs.filter((run) => run.server === "floor");
  return floors.reduce((n, run) => n + run.rps, 0) / Math.max(1, floors.length);
}

const productRun = (r: WriteCeilingResult, announce: AnnounceMode) =>
  r.runs.find((run) => run.server === "product" && run.announce === announce);

export function writeCeilingTable(r: WriteCeilingResult): string {
  const floor = floorRps(r);
  const lines = [
    "| target | announcement | req/s | × floor | p50 / p99 ms | errors | server CPU ms/req | counts lowered |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const run of r.runs) {
    const who = run.server === "floor" ? "floor (bench/floor.ts)" : `product, ${run.instances} instances`;
    const rps = run.instances > 1 ? `${fmt(run.rps, 0)} (${run.rpsPerInstance.map((x) => fmt(x, 0)).join(" + ")})` : fmt(run.rps, 0);
    lines.push(
      `| ${who} | ${WHAT[run.announce]} | ${rps} | ${run.server === "floor" ? "" : fmt(run.rps / floor, 2)} | ${fmt(run.p50)} / ${fmt(run.p99)} | ${run.errors} | ${fmt(run.cpuMsPerRequest, 2)} | ${run.changes} |`,
    );
  }
  const delivered = r.deliveries;
  const row = (label: string, cell: (d: Delivery) => string) => `| ${label} | ${delivered.map(cell).join(" | ")} |`;
  const ms = (n: number) => fmt(n, 0);
  lines.push(
    "",
    `Delivery to the ${delivered[0]?.streams ?? 0} unread-count streams (one per user, half on each instance), each product run:`,
    "",
    `| measurement | ${delivered.map((d) => WHAT[d.announce]).join(" | ")} |`,
    `|---|${delivered.map(() => "---:").join("|")}|`,
    row("changes made (unread counts lowered in the database)", (d) => String(d.changes)),
    row("answers recorded (latency samples)", (d) => String(d.answered)),
    row("events received", (d) => String(d.events)),
    row("users whose count changed / with ≥ 1 event", (d) => `${d.usersChanged} / ${d.usersWithEvents}`),
    row("**changed users without an event** (0)", (d) => `**${d.usersChangedWithoutEvent}**`),
    row("**users whose last count ≠ the database's** (0)", (d) => `**${d.wrongFinal}**`),
    row("**answer → event p50 / p99 / max ms**", (d) => `**${ms(d.latency.p50)} / ${ms(d.latency.p99)} / ${ms(d.latency.max)}**`),
    row("answered changes never seen on their stream", (d) => String(d.unmatched)),
    row(
      "NOTIFYs on unread_count (bench's LISTEN) / ids carried / most ids in one",
      (d) => `${d.notifies} / ${d.notifiedItems} / ${d.maxItemsPerNotify}`,
    ),
    row("outbox backlog, sampled every 200 ms: max rows / oldest's max age", (d) =>
      d.outbox
        ? `${d.outbox.maxRows} / ${fmt(d.outbox.maxLagSeconds, 2)} s (${d.outbox.samples} samples); ${d.outbox.rowsAtEnd} left after the load`
        : "-",
    ),
    row("end of load → report (outbox empty, then 2 s)", (d) => `${fmt(d.settleMs / 1000, 1)} s`),
    row("streams ended early", (d) => String(d.endedEarly)),
  );
  if (r.cohort) {
    lines.push(
      "",
      `Cohort of ${r.cohort.pros} pros activated once (restriction.activateCohort, outbox on): ${r.cohort.notifies} NOTIFY on restriction_flags (payload ${r.cohort.payloads.join(", ") || "-"}), heard ${fmt(r.cohort.heardAfterMs, 0)} ms after the call (the call took ${fmt(r.cohort.activationMs, 0)} ms).`,
    );
  }
  if (r.wide) {
    lines.push(
      "",
      `One statement lowering all ${r.wide.users} users' counts at once (raw SQL, as a seed or a script would; outbox on): ${r.wide.streamsRight} of ${r.wide.users} streams showed the database's count ${WIDE_WAIT_MS / 1000} s later; ${r.wide.notifies} NOTIFYs on unread_count carrying ${r.wide.notifiedItems} ids; ${r.wide.outboxRowsLeft} outbox rows still waiting.`,
    );
  }
  if (r.exhausted) lines.push("", `**${r.exhausted} requests found their user's unread notifications used up** (the seed was short).`);
  return lines.join("\n");
}

export function writeCeilingVerdicts(r: WriteCeilingResult): Verdict[] {
  const floor = floorRps(r);
  const floors = r.runs.filter((run) => run.server === "floor").map((run) => fmt(run.rps, 0));
  const outbox = productRun(r, "outbox");
  const notify = productRun(r, "notify");
  const none = productRun(r, "none");
  const delivery = r.deliveries.find((d) => d.announce === "outbox");
  const out: Verdict[] = [];
  if (outbox) {
    out.push({
      target: "single-user count-changing commits, outbox + relay ≥ 0.7× the floor",
      met: outbox.rps / floor >= 0.7 && outbox.errors === 0,
      detail: `${fmt(outbox.rps, 0)} vs ${fmt(floor, 0)} req/s (floor runs before and after: ${floors.join(", ")}) = ${fmt(outbox.rps / floor, 2)}×; ${outbox.errors} errors. For comparison: NOTIFY at commit ${notify ? `${fmt(notify.rps, 0)} req/s = ${fmt(notify.rps / floor, 2)}×` : "-"}; the product with no announcement (its own ceiling here) ${none ? `${fmt(none.rps, 0)} req/s = ${fmt(none.rps / floor, 2)}×, so announcing keeps ${fmt(outbox.rps / none.rps, 2)}× of it with the outbox${notify ? `, ${fmt(notify.rps / none.rps, 2)}× with NOTIFY at commit` : ""}` : "-"}`,
    });
  }
  if (delivery) {
    out.push({
      target: "every change reaches its stream (outbox + relay): nothing missing",
      met: delivery.usersChangedWithoutEvent === 0 && delivery.wrongFinal === 0 && delivery.unmatched === 0 && delivery.endedEarly === 0,
      detail: `${delivery.changes} changes for ${delivery.usersChanged} users, ${delivery.events} events; ${delivery.usersChangedWithoutEvent} changed users without an event, ${delivery.wrongFinal} streams whose last count is not the database's${delivery.wrongSamples.length ? ` (${delivery.wrongSamples.slice(0, 3).join("; ")})` : ""}, ${delivery.unmatched} answered changes never seen`,
    });
    out.push({
      target: "change → event p99 ≤ 1 s at that rate (outbox + relay; from the HTTP answer)",
      met: delivery.latency.p99 <= 1000 && delivery.unmatched === 0,
      detail: `p50 ${fmt(delivery.latency.p50, 0)} / p99 ${fmt(delivery.latency.p99, 0)} / max ${fmt(delivery.latency.max, 0)} ms over ${delivery.latency.samples} changes; ${delivery.notifies} NOTIFYs carried ${delivery.notifiedItems} ids (${fmt(delivery.notifiedItems / Math.max(1, delivery.notifies), 1)} on average)`,
    });
  }
  if (r.cohort) {
    out.push({
      target: `a cohort of ${r.cohort.pros} is one announcement, not ${r.cohort.pros}`,
      met: r.cohort.notifies === 1,
      detail: `${r.cohort.notifies} NOTIFY on restriction_flags (${r.cohort.payloads.join(", ") || "none"})`,
    });
  }
  if (r.wide) {
    out.push({
      target: `one statement changing ${r.wide.users} users' counts is announced to every stream (outbox + relay)`,
      met: r.wide.streamsRight === r.wide.users && r.wide.outboxRowsLeft === 0,
      detail: `${r.wide.streamsRight} of ${r.wide.users} streams right ${WIDE_WAIT_MS / 1000} s after the commit; ${r.wide.notifies} NOTIFYs carrying ${r.wide.notifiedItems} ids; ${r.wide.outboxRowsLeft} outbox rows left unannounced`,
    });
  }
  return out;
}
