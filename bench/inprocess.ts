// The scenarios that are timed one at a time rather than under load: cohort activation (in this process,
// through the product's procedure, counting its statements with createDb's onQuery hook) and push fan-out
// (over HTTP to the product server, which delivers to a local push service).
import postgres from "postgres";
import { createDb } from "../db/client.js";
import { createContextInner } from "../server/context.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import { makeSubscriber, type LocalPushService } from "../tools/local-push-service.js";
import { FLOOR_ACTIVATE_SQL } from "./floor.js";
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
  floor: Timing;
};

/**
 * Activates the seeded cohorts of `cohortSize` pros in turn, `count` times in all, through the product's
 * restriction.activateCohort procedure as a platform admin; then the same with the floor's one-statement
 * activation. Each activation after the first of a cohort rewrites the same 500 rows, as a re-activation does.
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
  const times: number[] = [];
  const statements: number[] = [];
  let statementTexts: string[] = [];
  try {
    // One unmeasured activation: connections open, code paths compiled.
    await caller.restriction.activateCohort({ id: seeded.cohortIds[0]! });
    for (let i = 0; i < count; i++) {
      const id = seeded.cohortIds[i % seeded.cohortIds.length]!;
      queries.length = 0;
      const started = performance.now();
      const cohort = await caller.restriction.activateCohort({ id });
      times.push(performance.now() - started);
      if (cohort.status !== "active" || cohort.proIds.length === 0) throw new Error(`activation of ${id} did not activate`);
      statements.push(queries.length);
      if (i === 0) statementTexts = [...queries];
    }
  } finally {
    await handle.close();
  }

  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const floorTimes: number[] = [];
  try {
    const activate = (id: string) => sql.begin((tx) => tx.unsafe(FLOOR_ACTIVATE_SQL, [id], { prepare: true }));
    await activate(seeded.cohortIds[0]!);
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await activate(seeded.cohortIds[i % seeded.cohortIds.length]!);
      floorTimes.push(performance.now() - started);
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
  return { product: summarize(times), statements, statementTexts, floor: summarize(floorTimes) };
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
