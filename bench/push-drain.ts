// `npm run bench -- --only=push-drain`: how fast the product's durable push queue (server/push/delivery-queue.ts)
// empties. 100 users with 10 push subscriptions each on the bench's local push service (answering 201); one
// batch of 100 events through the producer API (POST /api/notifications/events) queues 1,000 deliveries in
// one commit, and the product's queue, woken by that commit, sends them. Timed from the commit (bounded from
// above by the earlier of the batch's answer and the first push's arrival) to the last push's arrival at
// the push service. Beside it, the same 1,000 messages (same endpoints, keys, payloads, urgency, TTL, VAPID
// keys) sent straight with web-push's sendNotification from a child process of its own (bench/push-direct.ts),
// at the queue's real concurrency (20: it claims 20 and sends them all at once) and at the push service's
// DEFAULT_CONCURRENCY (10), interleaved with the product's rounds. Then the queue's concurrency is measured:
// 100 deliveries to endpoints that answer after 200 ms, the arrivals grouped in waves.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import { DEFAULT_CONCURRENCY } from "../server/push/sender.js";
import {
  type LocalPushService,
  makeSubscriber,
  type ReceivedPush,
  type Subscriber,
  startPushService,
} from "../tools/local-push-service.js";
import type { BenchDatabase } from "./database.js";
import type { Timing } from "./inprocess.js";
import { summarize } from "./inprocess.js";
import { eventBatch, insertUsers, postBatch, seedProducerKey } from "./producer-ingest.js";
import type { DirectAnswer, DirectMessage, DirectRequest } from "./push-direct.js";
import type { Verdict } from "./report.js";
import { type ProbeAnswer, type RunningServer, startServer } from "./servers.js";

export type PushDrainShape = {
  users: number;
  subscriptionsPerUser: number;
  /** Measured rounds of each (product, direct at each concurrency), interleaved. */
  rounds: number;
  vapid: { subject: string; publicKey: string; privateKey: string };
  /** --cpu-prof: the product's V8 profile goes here. */
  cpuProfDir?: string;
};

export type ProductRound = {
  /** The batch's POST, sent → answered (its transaction committed before the answer). */
  ingestMs: number;
  /** Commit (bound) → last push received; commit → every delivery recorded `sent` (polled every 20 ms). */
  drainMs: number;
  recordedMs: number;
  received: number;
  sent: number;
  failed: number;
  wrongPayloads: number;
  /** The product's CPU from before the POST until every delivery was recorded. */
  cpuMs: number;
};

export type DirectRound = {
  concurrency: number;
  drainMs: number;
  answeredMs: number;
  received: number;
  failed: number;
  wrongPayloads: number;
  /** The sender's CPU (user + system) over the round. */
  cpuMs: number;
};

export type PushDrainResult = {
  shape: Omit<PushDrainShape, "vapid" | "cpuProfDir">;
  deliveries: number;
  product: ProductRound[];
  direct: DirectRound[];
  /** 100 deliveries to endpoints answering after `delayMs`: arrivals grouped in waves (a gap ≥ delay/2 starts one). */
  concurrency: { deliveries: number; delayMs: number; waves: number[]; drainMs: number; averageInFlight: number };
};

const PRODUCER = "bench";
const TTL_SECONDS = 86_400;
const SLOW_DELAY_MS = 200;
const SLOW_DELIVERIES = 100;
const ARRIVAL_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuMs = (a: ProbeAnswer, b: ProbeAnswer) => (b.cpu.user - a.cpu.user + b.cpu.system - a.cpu.system) / 1000;

/** Waits (polling every 5 ms, so the bench takes no CPU from the senders) until `count` pushes arrived after `from`. */
async function arrivals(push: LocalPushService, from: number, count: number): Promise<ReceivedPush[]> {
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  while (push.received.length - from < count) {
    if (Date.now() > deadline)
      throw new Error(`push-drain: ${push.received.length - from} of ${count} pushes arrived within ${ARRIVAL_TIMEOUT_MS / 1000} s`);
    await sleep(5);
  }
  // Anything that came later than expected (a repeat) is counted by the caller.
  await sleep(50);
  return push.received.slice(from);
}

/** Polls (every 20 ms) until none of the deliveries of these events is queued; returns their final statuses. */
async function recorded(sql: postgres.Sql, like: string): Promise<{ sent: number; failed: number; at: number }> {
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  for (;;) {
    const [row] = await sql<{ queued: number; sent: number; other: number }[]>`
      select count(*) filter (where status = 'queued')::int as queued, count(*) filter (where status = 'sent')::int as sent,
             count(*) filter (where status not in ('queued', 'sent'))::int as other
      from push_deliveries where producer = ${PRODUCER} and event_id like ${like}`;
    if (row!.queued === 0) return { sent: row!.sent, failed: row!.other, at: Date.now() };
    if (Date.now() > deadline) throw new Error(`push-drain: ${row!.queued} deliveries of ${like} still queued`);
    await sleep(20);
  }
}

/**
 * Pushes whose payload, decrypted with the subscriber's keys, is not the one its endpoint was to get: the
 * fields expected ({title, body, url}, which a declarative payload keeps at its top level) compared, the others
 * (the declarative part, the receipt) not.
 */
function wrongPayloads(received: ReceivedPush[], subscribers: Map<string, Subscriber>, expected: Map<string, unknown>): number {
  const canonical = (v: unknown, keys: string[]) => JSON.stringify(keys.sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
  let wrong = 0;
  for (const push of received) {
    try {
      const subscriber = subscribers.get(push.path);
      const want = expected.get(push.path);
      const keys = Object.keys((want ?? {}) as Record<string, unknown>);
      if (!subscriber || want === undefined || canonical(subscriber.decrypt(push.body), keys) !== canonical(want, keys)) wrong++;
    } catch {
      wrong++;
    }
  }
  return wrong;
}

/** The direct sender (bench/push-direct.ts) as a child process. */
async function startDirect() {
  const child: ChildProcess = fork(fileURLToPath(new URL("./push-direct.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = <T extends DirectAnswer>(request: DirectRequest) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("push-drain: the direct sender did not answer")), ARRIVAL_TIMEOUT_MS);
      child.once("message", (answer: T) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.send(request);
    });
  return {
    ask,
    stop: () => {
      if (child.connected) child.disconnect();
      if (child.exitCode === null) child.kill("SIGTERM");
    },
  };
}

export async function measurePushDrain(
  db: BenchDatabase,
  productEnv: Record<string, string>,
  shape: PushDrainShape,
  log: (message: string) => void,
): Promise<PushDrainResult> {
  const sql = db.sql;
  const pushService = await startPushService();
  const users = await insertUsers(sql, "drain-user", shape.users);
  const [slowUser] = await insertUsers(sql, "drain-slow", 1);
  const apiKey = await seedProducerKey(sql);
  const subscribers = new Map<string, Subscriber>();
  /** The user (index) each endpoint path belongs to. */
  const ownerOf = new Map<string, number>();
  const rows = users.flatMap((userId, u) =>
    Array.from({ length: shape.subscriptionsPerUser }, (_, k) => {
      const s = makeSubscriber();
      const endpoint = pushService.endpoint(201);
      const path = new URL(endpoint).pathname;
      subscribers.set(path, s);
      ownerOf.set(path, u);
      return { user_id: userId, endpoint, p256dh: s.p256dh, auth: s.auth, user_agent: `BenchBrowser/${k}` };
    }),
  );
  const slowRows = Array.from({ length: SLOW_DELIVERIES }, (_, k) => {
    const s = makeSubscriber();
    return {
      user_id: slowUser!,
      endpoint: pushService.endpoint(`delay-${SLOW_DELAY_MS}`),
      p256dh: s.p256dh,
      auth: s.auth,
      user_agent: `BenchBrowser/${k}`,
    };
  });
  for (let i = 0; i < rows.length; i += 500) await sql`insert into push_subscriptions ${sql(rows.slice(i, i + 500))}`;
  await sql`insert into push_subscriptions ${sql(slowRows)}`;
  await sql.unsafe("vacuum (analyze)");
  const deliveries = users.length * shape.subscriptionsPerUser;

  /** What each endpoint is to receive from a batch: its user's event's {title, body, url}. */
  const expectedOf = (batch: ReturnType<typeof eventBatch>) =>
    new Map(
      [...ownerOf].map(([path, u]) => {
        const e = batch.events[u]!;
        return [path, { title: e.title, body: e.body, url: e.url }];
      }),
    );

  let server: RunningServer | undefined;
  const direct = await startDirect();
  try {
    server = await startServer("product", "./product-server.ts", productEnv, { cpuProfDir: shape.cpuProfDir });
    const origin = server.origin;

    /** One batch of events (one per user of `userIds`) through the producer API; its deliveries drained. */
    const productRound = async (tag: string, batchUsers: readonly string[], expectedPushes: number): Promise<ProductRound> => {
      const batch = eventBatch(tag, 0, batchUsers);
      const from = pushService.received.length;
      const cpuBefore = await server!.probe({ gc: false });
      const posted = Date.now();
      const results = await postBatch(origin, apiKey, batch);
      const answered = Date.now();
      const queued = results.reduce((n, r) => n + r.push, 0);
      if (results.some((r) => r.status !== "created") || queued !== expectedPushes) {
        throw new Error(`push-drain: the batch queued ${queued} deliveries, not ${expectedPushes}: ${JSON.stringify(results.slice(0, 3))}`);
      }
      const got = await arrivals(pushService, from, expectedPushes);
      const done = await recorded(sql, `${tag}-%`);
      const cpuAfter = await server!.probe({ gc: false });
      const times = got.map((r) => r.at);
      const committed = Math.min(answered, ...times);
      return {
        ingestMs: answered - posted,
        drainMs: Math.max(...times) - committed,
        recordedMs: done.at - committed,
        received: got.length,
        sent: done.sent,
        failed: done.failed,
        wrongPayloads:
          batchUsers.length === users.length ? wrongPayloads(got, subscribers, expectedOf(batch)) + (got.length - expectedPushes) : 0,
        cpuMs: cpuMs(cpuBefore, cpuAfter),
      };
    };

    /** The messages of a product round, as the queue sent them (payload and urgency from push_deliveries). */
    const messagesOf = async (tag: string): Promise<DirectMessage[]> =>
      (
        await sql<{ endpoint: string; p256dh: string; auth: string; payload: unknown; urgency: DirectMessage["urgency"] }[]>`
          select s.endpoint, s.p256dh, s.auth, d.payload, d.urgency
          from push_deliveries d join push_subscriptions s on s.id = d.subscription_id
          where d.producer = ${PRODUCER} and d.event_id like ${`${tag}-%`} order by d.id`
      ).map((m) => ({ ...m, payload: JSON.stringify(m.payload) }));

    const directRound = async (concurrency: number, expected: Map<string, unknown> | null): Promise<DirectRound> => {
      const from = pushService.received.length;
      const answer = await direct.ask<Extract<DirectAnswer, { startedAt: number }>>({ send: concurrency });
      if (answer.failed) log(`push-drain: direct sends failed: ${answer.errors.join("; ")}`);
      const got = await arrivals(pushService, from, answer.sent);
      return {
        concurrency,
        drainMs: Math.max(...got.map((r) => r.at)) - answer.startedAt,
        answeredMs: answer.doneAt - answer.startedAt,
        received: got.length,
        failed: answer.failed,
        cpuMs: answer.cpuMs,
        wrongPayloads: expected ? wrongPayloads(got, subscribers, expected) + (got.length - answer.sent) : 0,
      };
    };

    // Warm-up, unmeasured: 10 users' events (100 deliveries) through the product, then the same messages direct.
    log(`push-drain: warm-up, ${10 * shape.subscriptionsPerUser} deliveries through the queue and direct`);
    await productRound("warm", users.slice(0, 10), 10 * shape.subscriptionsPerUser);
    const warm = await messagesOf("warm");
    await direct.ask({ load: warm, vapid: shape.vapid, ttlSeconds: TTL_SECONDS });
    await directRound(20, null);

    const product: ProductRound[] = [];
    const directs: DirectRound[] = [];
    let loaded = false;
    let firstBatch: ReturnType<typeof eventBatch> | undefined;
    for (let round = 1; round <= shape.rounds; round++) {
      await sleep(500);
      const tag = `drain${round}`;
      const p = await productRound(tag, users, deliveries);
      product.push(p);
      log(
        `push-drain round ${round}: product ${deliveries} deliveries, commit → last received ${p.drainMs} ms (all recorded ${p.recordedMs} ms; POST ${p.ingestMs} ms), ${p.sent} sent, ${p.failed} failed, ${p.wrongPayloads} wrong`,
      );
      if (!loaded) {
        // Every direct round sends round 1's 1,000 messages.
        await direct.ask({ load: await messagesOf(tag), vapid: shape.vapid, ttlSeconds: TTL_SECONDS });
        firstBatch = eventBatch(tag, 0, users);
        loaded = true;
      }
      for (const concurrency of [20, DEFAULT_CONCURRENCY]) {
        await sleep(500);
        const d = await directRound(concurrency, expectedOf(firstBatch!));
        directs.push(d);
        log(
          `push-drain round ${round}: direct at ${concurrency}: first send → last received ${d.drainMs} ms (all answered ${d.answeredMs} ms), ${d.failed} failed, ${d.wrongPayloads} wrong`,
        );
      }
    }

    // The queue's concurrency: deliveries that take 200 ms to answer, grouped in waves by their arrival.
    await sleep(500);
    log(`push-drain: ${SLOW_DELIVERIES} deliveries to endpoints answering after ${SLOW_DELAY_MS} ms`);
    const from = pushService.received.length;
    const results = await postBatch(origin, apiKey, eventBatch("slow", 0, [slowUser!]));
    const answered = Date.now();
    if (results[0]?.push !== SLOW_DELIVERIES) throw new Error(`push-drain: the slow user's event queued ${results[0]?.push} deliveries`);
    const got = await arrivals(pushService, from, SLOW_DELIVERIES);
    const done = await recorded(sql, "slow-%");
    const times = got.map((r) => r.at).sort((a, b) => a - b);
    const waves: number[] = [];
    times.forEach((t, i) => {
      if (i === 0 || t - times[i - 1]! >= SLOW_DELAY_MS / 2) waves.push(0);
      waves[waves.length - 1]!++;
    });
    const slowMs = done.at - Math.min(answered, times[0]!);
    return {
      shape: { users: shape.users, subscriptionsPerUser: shape.subscriptionsPerUser, rounds: shape.rounds },
      deliveries,
      product,
      direct: directs,
      concurrency: {
        deliveries: SLOW_DELIVERIES,
        delayMs: SLOW_DELAY_MS,
        waves,
        drainMs: slowMs,
        averageInFlight: (SLOW_DELIVERIES * SLOW_DELAY_MS) / slowMs,
      },
    };
  } finally {
    direct.stop();
    await server?.stop();
    await pushService.close().catch(() => {});
  }
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
const median = (values: number[]) => summarize(values).p50;
const timing = (t: Timing) => `${fmt(t.p50)} ms (${t.samples} rounds, max ${fmt(t.max)})`;

function summary(r: PushDrainResult) {
  const product = summarize(r.product.map((p) => p.drainMs));
  const at = (c: number) => summarize(r.direct.filter((d) => d.concurrency === c).map((d) => d.drainMs));
  return { product, direct20: at(20), direct10: at(DEFAULT_CONCURRENCY) };
}

export function pushDrainTable(r: PushDrainResult): string {
  const s = summary(r);
  const sent = r.product.reduce((n, p) => n + p.sent, 0);
  const failed = r.product.reduce((n, p) => n + p.failed, 0) + r.direct.reduce((n, d) => n + d.failed, 0);
  const wrong = r.product.reduce((n, p) => n + p.wrongPayloads, 0) + r.direct.reduce((n, d) => n + d.wrongPayloads, 0);
  const rows: [string, string, string][] = [
    [
      `**product: ${r.deliveries} deliveries, commit → last received** (median)`,
      `**${timing(s.product)}**`,
      `one batch of ${r.shape.users} events through the producer API queues them in one commit; the queue (20 claimed at a time) sends them; per round: ${r.product.map((p) => fmt(p.drainMs)).join(", ")} ms`,
    ],
    [
      "product: commit → every delivery recorded sent (median)",
      `${fmt(median(r.product.map((p) => p.recordedMs)))} ms`,
      `push_deliveries polled every 20 ms; ${sent} sent in all, ${failed} failed; ${wrong} pushes with a wrong payload or repeated (product and direct)`,
    ],
    [
      "product: the batch's POST (100 events, 1,000 deliveries queued)",
      `${fmt(median(r.product.map((p) => p.ingestMs)))} ms`,
      "sent → answered, median",
    ],
    [
      "product: server CPU per delivery",
      `${(median(r.product.map((p) => p.cpuMs)) / r.deliveries).toFixed(3)} ms`,
      `process.cpuUsage, user + system, from before the POST until every delivery was recorded (the POST included), median; the direct sender's: ${(median(r.direct.map((d) => d.cpuMs)) / r.deliveries).toFixed(3)} ms per message`,
    ],
    [
      `**direct web-push at 20 at once** (median)`,
      `**${timing(s.direct20)}**`,
      `sendNotification in a child process, the same ${r.deliveries} messages; first send → last received; per round: ${r.direct
        .filter((d) => d.concurrency === 20)
        .map((d) => fmt(d.drainMs))
        .join(", ")} ms`,
    ],
    [
      `direct web-push at ${DEFAULT_CONCURRENCY} at once (median)`,
      `${timing(s.direct10)}`,
      `DEFAULT_CONCURRENCY of server/push/sender.ts; per round: ${r.direct
        .filter((d) => d.concurrency === DEFAULT_CONCURRENCY)
        .map((d) => fmt(d.drainMs))
        .join(", ")} ms`,
    ],
    [
      "**product ÷ direct** (medians)",
      `**${fmt(s.product.p50 / s.direct20.p50, 2)}× / ${fmt(s.product.p50 / s.direct10.p50, 2)}×**`,
      `against direct at 20 / at ${DEFAULT_CONCURRENCY}`,
    ],
    [
      `the queue's concurrency: ${r.concurrency.deliveries} deliveries answered after ${r.concurrency.delayMs} ms`,
      `waves of ${r.concurrency.waves.join(", ")}`,
      `drained in ${fmt(r.concurrency.drainMs)} ms: ${fmt(r.concurrency.averageInFlight, 1)} in flight on average (${r.concurrency.deliveries} × ${r.concurrency.delayMs} ms ÷ the time); a wave is the arrivals until a gap of ${r.concurrency.delayMs / 2} ms`,
    ],
  ];
  return ["| measurement | value | what it is |", "|---|---:|---|", ...rows.map((c) => `| ${c.join(" | ")} |`)].join("\n");
}

export function pushDrainVerdicts(r: PushDrainResult): Verdict[] {
  const s = summary(r);
  const ratio = s.product.p50 / s.direct20.p50;
  const failed = r.product.reduce((n, p) => n + p.failed, 0) + r.direct.reduce((n, d) => n + d.failed, 0);
  const wrong = r.product.reduce((n, p) => n + p.wrongPayloads, 0) + r.direct.reduce((n, d) => n + d.wrongPayloads, 0);
  return [
    {
      target: `push queue drains ${r.deliveries} deliveries in ≤ 2× the time of direct web-push sends at the same concurrency`,
      met: ratio <= 2 && failed === 0,
      detail: `median ${fmt(s.product.p50)} ms vs ${fmt(s.direct20.p50)} ms direct at 20 = ${fmt(ratio, 2)}× (direct at ${DEFAULT_CONCURRENCY}: ${fmt(s.direct10.p50)} ms, ${fmt(s.product.p50 / s.direct10.p50, 2)}×)`,
    },
    {
      target: "every delivery sent once, with its own payload",
      met: failed === 0 && wrong === 0 && r.product.every((p) => p.sent === r.deliveries && p.received === r.deliveries),
      detail: `${r.product.map((p) => `${p.sent} sent / ${p.received} received`).join(", ")}; ${failed} failed; ${wrong} wrong or repeated`,
    },
  ];
}
