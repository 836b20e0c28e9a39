// `npm run bench -- --only=producer-ingest`: the producer API (POST /api/notifications/events, issue O)
// under load, beside the floor's twin of it (bench/floor.ts: the same checks, the same four reads and one
// multi-row INSERT each for events, notifications and push deliveries, in one transaction, by hand).
// Every request is a batch of 100 fresh events, one for each of 100 users; 10 of the users have an active
// push subscription on the bench's local push service (answering 201), so each batch also queues
// deliveries, and a few users' preferences turn a channel off for a category. The product runs with VAPID
// keys, so its delivery queue runs in the same process:
//
// - "deliveries held": a trigger of the bench's (on this throwaway database only) dates every new delivery
//   a day ahead, so the product's queue, woken after each commit, finds nothing due: the ingest path alone,
//   the floor's exact job;
// - "queue draining": the trigger dropped, the queue sends each delivery to the local push service while
//   the batches keep coming, as one instance of the service would.
//
// The floor runs before and after the product (the bracket shows how much the machine moved). For each run:
// events/s, the database's commits per batch (pg_stat_database.xact_commit over the run ÷ batches) and the
// write transactions per batch (the distinct xmin of the rows each batch wrote: 1 when the batch is one
// transaction).
import type postgres from "postgres";
import { type LocalPushService, makeSubscriber, startPushService } from "../tools/local-push-service.js";
import type { BenchDatabase } from "./database.js";
import { type LoadResult, type RequestPlan, runLoad } from "./load.js";
import type { Verdict } from "./report.js";
import { seedApiKey } from "./seed.js";
import { type RunningServer, startServer } from "./servers.js";

export type ProducerIngestShape = {
  users: number;
  /** Every n-th user has one active push subscription. */
  subscribedEvery: number;
  connections: number;
  duration: number;
  warmup: number;
  floorEnv: Record<string, string>;
  /** --cpu-prof: the servers' V8 profiles go here (a folder each). */
  cpuProfDir?: string;
};

/** floor: the floor's arrays (unnest); floor-values: the floor with VALUES lists; held / draining: the product. */
export type IngestKind = "floor" | "floor-values" | "held" | "draining";

export type IngestRun = LoadResult & {
  kind: IngestKind;
  target: string;
  /** Events answered per second: batches per second × events per batch (every event created). */
  eventsPerSecond: number;
  /** Batches stored by the run (answered, and any still in flight when autocannon stopped). */
  batches: number;
  storedEvents: number;
  storedNotifications: number;
  storedDeliveries: number;
  /** Events that were not `created` (rejected, duplicate…): 0 when every batch did its whole job. */
  notCreated: number;
  /** pg_stat_database.xact_commit of the bench database over the run ÷ batches stored. */
  commitsPerBatch: number;
  /** Distinct xmin of the rows each batch wrote (its events, notifications and untouched deliveries). */
  writeTransactionsPerBatch: { mean: number; max: number };
  /** Server CPU per event (ms). */
  cpuMsPerEvent: number | null;
  /** Queue draining only: deliveries the push service received during the run, and those still due at its end. */
  pushesReceived?: number;
  dueAtEnd?: number;
};

export type ProducerIngestResult = {
  shape: Omit<ProducerIngestShape, "floorEnv">;
  eventsPerBatch: number;
  deliveriesPerBatch: number;
  runs: IngestRun[];
};

export const EVENTS_PER_BATCH = 100;
const PATH = "/api/notifications/events";
const PRODUCER = "bench";
const ADMIN = { id: "bench-producer-admin", email: "bench-producer-admin@bench.test" };
const TYPES = [
  "message.received",
  "lead.created",
  "review.posted",
  "invoice.paid",
  "payment.failed",
  "account.updated",
  "security.alert",
  "weekly_digest",
];
const TITLES = [
  "New message from Bench Pro #",
  "A new lead is waiting (#)",
  "You received a review (#)",
  "Invoice # paid",
  "Payment failed for invoice #",
  "Your account was updated (#)",
  "New sign-in to your account (#)",
  "Your weekly digest #",
];

const STATS_SETTLE_MS = 11_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Users `<prefix>-000…` inserted straight into `users` (the producer API takes a user id, no session). */
export async function insertUsers(sql: postgres.Sql, prefix: string, count: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    insert into users (id, name, email)
    select ${prefix} || '-' || lpad(i::text, 3, '0'), 'Producer user ' || i, ${prefix} || '-' || i || '@bench.test'
    from generate_series(0, ${count - 1}::int) i
    order by i
    returning id`;
  return rows.map((r) => r.id);
}

/** The bench's producer key ("bench", scope notifications:write) among 99 other services' keys. Returns its secret. */
export const seedProducerKey = (sql: postgres.Sql) => seedApiKey(sql, ADMIN, ["notifications:write"]);

/**
 * Batch `batch` of a run: one event for each user, eventIds `<tag>-<batch>-<user index>`; the types (and
 * so the categories and the preferences that apply) turn with the batch number.
 */
export function eventBatch(tag: string, batch: number, userIds: readonly string[]) {
  return {
    events: userIds.map((userId, i) => {
      const kind = (batch + i) % TYPES.length;
      const n = (batch * userIds.length + i) % 9973;
      return {
        eventId: `${tag}-${batch}-${i}`,
        userId,
        type: TYPES[kind]!,
        title: TITLES[kind]!.replace("#", String(n)),
        body: `Details about item ${n % 997} are waiting for you in the app`,
        url: `/inbox/${tag}/${batch}/${i}`,
        ...(i % 2 === 0 ? { data: { threadId: `t-${batch}-${i}`, source: "bench" } } : {}),
      };
    }),
  };
}

export type EventResult = { eventId: string | null; status: string; notificationId: string | null; push: number; error?: string };

/** The results of a batch, whichever target answered (the product's envelope or the floor's bare object). */
export function resultsOf(status: number, body: unknown): EventResult[] {
  if (status !== 200) throw new Error(`HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  const b = body as { success?: boolean; data?: { results?: EventResult[] }; results?: EventResult[] };
  const results = b?.success === true ? b.data?.results : b?.results;
  if (!Array.isArray(results)) throw new Error(`no results: ${JSON.stringify(body).slice(0, 300)}`);
  return results;
}

/** POSTs one batch; throws unless it was answered 200. */
export async function postBatch(origin: string, apiKey: string, body: unknown, query = ""): Promise<EventResult[]> {
  const response = await fetch(origin + PATH + query, {
    method: "POST",
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return resultsOf(response.status, JSON.parse(text));
}

/** Subscriptions (every n-th user, one each, on the push service) and a few preferences. */
async function seedPush(sql: postgres.Sql, users: readonly string[], pushService: LocalPushService, every: number) {
  const subscribed = users.filter((_, i) => i % every === 0);
  const rows = subscribed.map((userId, i) => {
    const s = makeSubscriber();
    return { user_id: userId, endpoint: pushService.endpoint(201), p256dh: s.p256dh, auth: s.auth, user_agent: `BenchBrowser/${i}` };
  });
  if (rows.length) await sql`insert into push_subscriptions ${sql(rows)}`;
  // Half of the subscribed users take no pushes of reviews; every 25th user (from the 4th) no in-app billing.
  const preferences = [
    ...users.filter((_, i) => i % (2 * every) === 0).map((userId) => ({ user_id: userId, category: "reviews", in_app: true, push: false })),
    ...users.filter((_, i) => i % 25 === 3).map((userId) => ({ user_id: userId, category: "billing", in_app: false, push: true })),
  ];
  if (preferences.length) await sql`insert into notification_preferences ${sql(preferences)}`;
  return rows.length;
}

/** Holds new deliveries back from the product's queue (a day ahead), or lets them be due at once. */
async function holdDeliveries(sql: postgres.Sql, hold: boolean) {
  if (hold) {
    await sql.unsafe(`
      create or replace function bench_hold_deliveries() returns trigger language plpgsql as $$
      begin new.next_attempt_at := now() + interval '1 day'; return new; end $$;
      drop trigger if exists bench_hold_deliveries on push_deliveries;
      create trigger bench_hold_deliveries before insert on push_deliveries for each row execute function bench_hold_deliveries();`);
  } else {
    await sql.unsafe("drop trigger if exists bench_hold_deliveries on push_deliveries");
  }
}

const commits = async (sql: postgres.Sql) =>
  Number((await sql<{ n: string }[]>`select xact_commit::text as n from pg_stat_database where datname = current_database()`)[0]!.n);

const dueDeliveries = async (sql: postgres.Sql) =>
  Number(
    (await sql<{ n: number }[]>`select count(*)::int as n from push_deliveries where status = 'queued' and next_attempt_at <= now()`)[0]!.n,
  );

/** What the run's batches left in the database, and how many transactions wrote each batch. */
async function stored(sql: postgres.Sql, tag: string) {
  const like = `${tag}-%`;
  const [counts] = await sql<{ events: number; batches: number; notifications: number; deliveries: number }[]>`
    select (select count(*)::int from notification_events where producer = ${PRODUCER} and event_id like ${like}) as events,
           (select count(distinct split_part(event_id, '-', 2))::int from notification_events
             where producer = ${PRODUCER} and event_id like ${like}) as batches,
           (select count(*)::int from notifications n join notification_events e on e.notification_id = n.id
             where e.producer = ${PRODUCER} and e.event_id like ${like}) as notifications,
           (select count(*)::int from push_deliveries where producer = ${PRODUCER} and event_id like ${like}) as deliveries`;
  // xmin is the transaction that inserted a row (deliveries the queue has since updated carry the queue's).
  const perBatch = await sql<{ n: number }[]>`
    select count(distinct x)::int as n from (
      select split_part(event_id, '-', 2) as batch, xmin::text as x from notification_events
       where producer = ${PRODUCER} and event_id like ${like}
      union all
      select split_part(e.event_id, '-', 2), n.xmin::text from notifications n join notification_events e on e.notification_id = n.id
       where e.producer = ${PRODUCER} and e.event_id like ${like}
      union all
      select split_part(event_id, '-', 2), xmin::text from push_deliveries
       where producer = ${PRODUCER} and event_id like ${like} and attempts = 0
    ) w group by batch`;
  const ns = perBatch.map((r) => r.n);
  return {
    ...counts!,
    writeTransactionsPerBatch: { mean: ns.reduce((a, b) => a + b, 0) / Math.max(1, ns.length), max: Math.max(0, ...ns) },
  };
}

export async function measureProducerIngest(
  db: BenchDatabase,
  productEnv: Record<string, string>,
  shape: ProducerIngestShape,
  log: (message: string) => void,
): Promise<ProducerIngestResult> {
  const sql = db.sql;
  const users = await insertUsers(sql, "ingest-user", shape.users);
  const apiKey = await seedProducerKey(sql);
  const pushService = await startPushService();
  const subscribed = await seedPush(sql, users, pushService, shape.subscribedEvery);
  await holdDeliveries(sql, true);
  await sql.unsafe("vacuum (analyze)");
  log(`producer-ingest: ${users.length} users, ${subscribed} with a push subscription; batches of ${users.length} events`);

  const running: RunningServer[] = [];
  try {
    const [floor, product] = await Promise.all([
      startServer("floor", "./floor.ts", shape.floorEnv, { cpuProfDir: shape.cpuProfDir }),
      startServer("product", "./product-server.ts", productEnv, { cpuProfDir: shape.cpuProfDir }),
    ]);
    running.push(floor, product);

    // Both targets answer the same batch alike (status, push count, whether a notification was made).
    const verify = async (server: RunningServer, tag: string, query = "") => {
      const results = await postBatch(server.origin, apiKey, eventBatch(tag, 0, users), query);
      return JSON.stringify(results.map((r) => [r.status, r.push, r.notificationId !== null, r.error ?? null]));
    };
    const floorAnswer = await verify(floor, "verify.floor");
    const valuesAnswer = await verify(floor, "verify.values", "?insert=values");
    const productAnswer = await verify(product, "verify.product");
    if (floorAnswer !== productAnswer || valuesAnswer !== productAnswer) {
      throw new Error(
        `producer-ingest: targets disagree\n  floor: ${floorAnswer}\n  floor, VALUES: ${valuesAnswer}\n  product: ${productAnswer}`,
      );
    }
    const sample = JSON.parse(productAnswer) as [string, number, boolean, string | null][];
    if (sample.some(([status]) => status !== "created")) throw new Error(`producer-ingest: not every event was created: ${productAnswer}`);
    const deliveriesPerBatch = sample.reduce((n, [, push]) => n + push, 0);

    const runs: IngestRun[] = [];
    let batch = 0;
    const measure = async (server: RunningServer, kind: IngestKind, target: string, tag: string): Promise<IngestRun> => {
      let runTag = `${tag}.warm`;
      const path = kind === "floor-values" ? `${PATH}?insert=values` : PATH;
      const plan: RequestPlan = {
        method: "POST",
        path,
        headers: { "x-api-key": apiKey, "content-type": "application/json" },
        body: JSON.stringify(eventBatch(runTag, batch++, users)),
        next: () => ({ path, body: JSON.stringify(eventBatch(runTag, batch++, users)) }),
      };
      const load = { connections: shape.connections, duration: shape.warmup, warmup: 0, pid: server.pid };
      await runLoad(server.origin, plan, load);
      runTag = tag;
      // A backend reports its transactions to pg_stat_database at most once a second while busy, and
      // within 10 s of going idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL): wait for the warm-up's to land.
      await sleep(STATS_SETTLE_MS);
      const commitsBefore = await commits(sql);
      const receivedBefore = pushService.received.length;
      const result = await runLoad(server.origin, plan, { ...load, duration: shape.duration });
      const dueAtEnd = await dueDeliveries(sql);
      const pushesReceived = pushService.received.length - receivedBefore;
      await sleep(STATS_SETTLE_MS);
      const commitsAfter = await commits(sql);
      const rows = await stored(sql, tag);
      const run: IngestRun = {
        ...result,
        kind,
        target,
        eventsPerSecond: result.rps * EVENTS_PER_BATCH,
        batches: rows.batches,
        storedEvents: rows.events,
        storedNotifications: rows.notifications,
        storedDeliveries: rows.deliveries,
        notCreated: rows.batches * EVENTS_PER_BATCH - rows.events,
        commitsPerBatch: (commitsAfter - commitsBefore) / Math.max(1, rows.batches),
        writeTransactionsPerBatch: rows.writeTransactionsPerBatch,
        cpuMsPerEvent: result.cpuMsPerRequest === null ? null : result.cpuMsPerRequest / EVENTS_PER_BATCH,
        ...(kind === "draining" ? { pushesReceived, dueAtEnd } : {}),
      };
      log(
        `producer-ingest ${target.padEnd(34)} ${run.eventsPerSecond.toFixed(0).padStart(6)} events/s (${result.rps.toFixed(1)} batches/s)  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  errors ${result.errors}  ${run.commitsPerBatch.toFixed(2)} commits/batch  cpu ${run.cpuMsPerEvent?.toFixed(3) ?? "?"} ms/event`,
      );
      runs.push(run);
      return run;
    };

    await measure(floor, "floor", "floor", "floor1");
    await measure(floor, "floor-values", "floor, VALUES lists", "values");
    await measure(product, "held", "product, deliveries held", "held");
    await holdDeliveries(sql, false);
    await measure(product, "draining", "product, queue draining (201)", "drain");
    // The queue's backlog must not run into the floor's second run.
    for (let waited = 0; (await dueDeliveries(sql)) > 0 && waited < 120_000; waited += 250) await sleep(250);
    await holdDeliveries(sql, true);
    await measure(floor, "floor", "floor (again)", "floor2");

    const { floorEnv: _, cpuProfDir: __, ...rest } = shape;
    return { shape: rest, eventsPerBatch: EVENTS_PER_BATCH, deliveriesPerBatch, runs };
  } finally {
    await Promise.allSettled(running.map((s) => s.stop()));
    await pushService.close().catch(() => {});
  }
}

const fmt = (n: number | null | undefined, digits = 1) => (n === null || n === undefined || !Number.isFinite(n) ? "-" : n.toFixed(digits));

function floorEventsPerSecond(r: ProducerIngestResult): number {
  const floors = r.runs.filter((run) => run.kind === "floor");
  return floors.reduce((n, run) => n + run.eventsPerSecond, 0) / Math.max(1, floors.length);
}

export function producerIngestTable(r: ProducerIngestResult): string {
  const floor = floorEventsPerSecond(r);
  const header =
    "| target | events/s | batches/s | × floor | p50 / p99 ms per batch | errors | commits per batch | write transactions per batch (mean / max) | server CPU ms per event | stored: events / notifications / deliveries |";
  const lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"];
  for (const run of r.runs) {
    const ratio = run.kind === "floor" ? "" : fmt(run.eventsPerSecond / floor, 2);
    const drain =
      run.pushesReceived === undefined ? "" : `; ${run.pushesReceived} pushes received during the run, ${run.dueAtEnd} due at its end`;
    lines.push(
      `| ${run.target} | ${fmt(run.eventsPerSecond, 0)} | ${fmt(run.rps, 1)} | ${ratio} | ${fmt(run.p50)} / ${fmt(run.p99)} | ${run.errors} | ${fmt(run.commitsPerBatch, 2)} | ${fmt(run.writeTransactionsPerBatch.mean, 2)} / ${run.writeTransactionsPerBatch.max} | ${fmt(run.cpuMsPerEvent, 3)} | ${run.storedEvents} / ${run.storedNotifications} / ${run.storedDeliveries}${drain} |`,
    );
  }
  return lines.join("\n");
}

export function producerIngestVerdicts(r: ProducerIngestResult): Verdict[] {
  const floor = floorEventsPerSecond(r);
  const floors = r.runs.filter((run) => run.kind === "floor").map((run) => fmt(run.eventsPerSecond, 0));
  const held = r.runs.find((run) => run.kind === "held");
  const draining = r.runs.find((run) => run.kind === "draining");
  const out: Verdict[] = [];
  const versus = (run: IngestRun, what: string) => {
    const ratio = run.eventsPerSecond / floor;
    out.push({
      target: `producer API events/s ≥ 0.7× the floor's (${what})`,
      met: ratio >= 0.7 && run.errors === 0,
      detail: `${fmt(run.eventsPerSecond, 0)} vs ${fmt(floor, 0)} events/s (the floor's runs before and after: ${floors.join(", ")}) = ${fmt(ratio, 2)}×; ${run.errors} errors; CPU ${fmt(run.cpuMsPerEvent, 3)} ms/event`,
    });
  };
  if (held) versus(held, "deliveries held: the ingest path alone, the floor's job");
  if (draining) versus(draining, "the queue draining to a push service in the same process meanwhile");
  const products = [held, draining].filter((run): run is IngestRun => !!run);
  if (products.length) {
    out.push({
      target: "one transaction (one commit) per batch of 100 events for 100 users",
      met: products.every((run) => run.writeTransactionsPerBatch.max === 1),
      detail: products
        .map(
          (run) =>
            `${run.target}: ${fmt(run.writeTransactionsPerBatch.mean, 2)} write transactions per batch (max ${run.writeTransactionsPerBatch.max}, ${run.batches} batches), ${fmt(run.commitsPerBatch, 2)} commits per batch in all`,
        )
        .join("; "),
    });
  }
  const all = r.runs;
  out.push({
    target: "every answered event stored, every event created",
    met: all.every((run) => run.notCreated === 0 && run.errors === 0 && run.storedEvents >= run.requests * EVENTS_PER_BATCH),
    detail: all
      .map((run) => `${run.target}: ${run.storedEvents} events for ${run.requests} answered batches, ${run.notCreated} not created`)
      .join("; "),
  });
  return out;
}
