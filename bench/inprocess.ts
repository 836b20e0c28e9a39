// The scenarios that are timed one at a time rather than under load: cohort activation (in this process,
// through the product's procedure, counting its statements with createDb's onQuery hook, beside the same
// statements by hand: bench/floor-activation.ts) and push fan-out
// (over HTTP to the product server, which delivers to a local push service).
import { randomUUID } from "node:crypto";
import postgres from "postgres";
import { createDb } from "../db/client.js";
import { createContextInner } from "../server/context.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import { type LocalPushService, makeSubscriber } from "../tools/local-push-service.js";
import { FLOOR_ACTIVATE_SQL } from "./floor.js";
import { FLOOR_ACTIVATE_COHORT_SQL, FLOOR_LOCK_COHORT_SQL } from "./floor-activation.js";
import type { Seeded } from "./seed.js";

export type Timing = { samples: number; p50: number; p99: number; max: number };

export function summarize(values: number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  return { samples: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

export type ActivationResult = {
  product: Timing;
  /** Statements Drizzle sent per activation (all inside the transaction; BEGIN/COMMIT not counted). */
  statements: number[];
  statementTexts: string[];
  /** The product's two statements by hand (bench/floor-activation.ts). */
  floor: Timing;
  /** The floor's earlier single statement (FLOOR_ACTIVATE_SQL), which did less than the product must. */
  floorBefore: Timing;
  /** What one activation wrote, on average, besides the 500 statuses and the cohort. */
  written: Record<"product" | "floor" | "floorBefore", Written>;
};

export type Written = { historyRows: number; auditEvents: number };

/**
 * Activates the seeded cohorts of `cohortSize` pros in turn, `count` times in all, three ways per turn,
 * interleaved so that the shared machine's load weighs on each alike: through the product's
 * restriction.activateCohort procedure as a platform admin; with the same two statements by hand
 * (the floor); with the floor's earlier single statement. Every cohort is activated once before timing,
 * so each timed activation, whichever way, rewrites the same 500 rows as a re-activation does.
 */
export async function measureCohortActivation(databaseUrl: string, seeded: Seeded, count: number): Promise<ActivationResult> {
  const queries: string[] = [];
  const handle = await createDb({ databaseUrl, maxConnections: 2, onQuery: (q) => void queries.push(q) });
  const caller = createCaller(
    createContextInner(
      { db: handle.db, push: createPushService({ vapid: null }) },
      { user: { id: seeded.admin.id, name: "bench-admin", email: seeded.admin.email, role: "admin" } },
    ),
  );
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const product = async (id: string) => {
    const cohort = await caller.restriction.activateCohort({ id });
    if (cohort.status !== "active" || cohort.proIds.length === 0) throw new Error(`activation of ${id} did not activate`);
  };
  const floor = async (id: string) => {
    const [row] = await sql.begin(async (tx) => {
      await tx.unsafe(FLOOR_LOCK_COHORT_SQL, [id], { prepare: true });
      return tx.unsafe(FLOOR_ACTIVATE_COHORT_SQL, [id, randomUUID(), seeded.admin.id, seeded.admin.email, null], { prepare: true });
    });
    if (row?.status !== "active") throw new Error(`floor activation of ${id} did not activate`);
  };
  const floorBefore = (id: string) => sql.begin((tx) => tx.unsafe(FLOOR_ACTIVATE_SQL, [id], { prepare: true }));
  const ways = { product, floor, floorBefore };

  const times = { product: [] as number[], floor: [] as number[], floorBefore: [] as number[] };
  const written = {
    product: { historyRows: 0, auditEvents: 0 },
    floor: { historyRows: 0, auditEvents: 0 },
    floorBefore: { historyRows: 0, auditEvents: 0 },
  };
  const marks = async () => {
    const [row] = await sql<{ history: number; audit: number }[]>`
      select coalesce((select max(id) from pro_flag_changes), 0)::float8 as history,
             coalesce((select max(seq) from audit_events), 0)::float8 as audit`;
    return row!;
  };
  const statements: number[] = [];
  let statementTexts: string[] = [];
  try {
    // Unmeasured: every cohort activated once (each way's connections open, statements prepared, code compiled).
    for (const id of seeded.cohortIds) await product(id);
    for (const way of [floor, floorBefore]) await way(seeded.cohortIds[0]!);
    for (let i = 0; i < count; i++) {
      const id = seeded.cohortIds[i % seeded.cohortIds.length]!;
      for (const [name, way] of Object.entries(ways) as [keyof typeof ways, (id: string) => Promise<unknown>][]) {
        const before = await marks();
        queries.length = 0;
        const started = performance.now();
        await way(id);
        times[name].push(performance.now() - started);
        const after = await marks();
        written[name].historyRows += (after.history - before.history) / count;
        written[name].auditEvents += (after.audit - before.audit) / count;
        if (name === "product") {
          statements.push(queries.length);
          if (i === 0) statementTexts = [...queries];
        }
      }
    }
  } finally {
    await handle.close();
    await sql.end({ timeout: 5 });
  }
  return {
    product: summarize(times.product),
    statements,
    statementTexts,
    floor: summarize(times.floor),
    floorBefore: summarize(times.floorBefore),
    written,
  };
}

export type PushResult = { timing: Timing; subscriptions: number; delivered: number; failed: number };

/**
 * Registers `subscriptions` push subscriptions (real P-256 keys) for one user at the local push service,
 * then times POST /api/notifications/test/push on the product server, `rounds` times, each a fan-out to
 * all of them.
 */
export async function measurePushFanOut(
  sql: postgres.Sql,
  productOrigin: string,
  pushService: LocalPushService,
  seeded: Seeded,
  subscriptions: number,
  rounds: number,
): Promise<PushResult> {
  const target = seeded.others[0]!;
  const rows = Array.from({ length: subscriptions }, (_, i) => {
    const subscriber = makeSubscriber();
    return {
      user_id: target.id,
      endpoint: pushService.endpoint(201),
      p256dh: subscriber.p256dh,
      auth: subscriber.auth,
      user_agent: `BenchBrowser/${i}`,
    };
  });
  await sql`insert into push_subscriptions ${sql(rows)}`;

  const send = async () => {
    const response = await fetch(`${productOrigin}/api/notifications/test/push`, {
      method: "POST",
      headers: { authorization: `Bearer ${seeded.admin.token}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "message.received", title: "Bench push", body: "Fan-out", targetUserId: target.id }),
      signal: AbortSignal.timeout(60_000),
    });
    const body = (await response.json()) as { data?: { sent: number; failed: number } };
    if (response.status !== 200 || !body.data) throw new Error(`test/push answered ${response.status}: ${JSON.stringify(body)}`);
    return body.data;
  };

  await send(); // warm-up: connections to the push service, code paths compiled
  const times: number[] = [];
  let delivered = 0;
  let failed = 0;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const result = await send();
    times.push(performance.now() - started);
    delivered += result.sent;
    failed += result.failed;
  }
  return { timing: summarize(times), subscriptions, delivered, failed };
}
