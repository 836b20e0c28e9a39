// `npm run bench -- --only=push-collapse`: what topic collapse (docs/api.md#topic-collapse) saves. 100 users, each
// with one push subscription on the local push service that answers after SLOW_MS (a slow push service or
// network); 10 batches of 100 events through the producer API, event i of each batch for user i on topic
// `t-<i>`: 1,000 pushes on 100 topics, posted back to back. The queue sends while newer pushes of the same
// topics keep coming, and each newer one supersedes the older still queued. Reported: the sends made, those
// superseded (saved), and whether each topic's newest push arrived (none lost).
import type postgres from "postgres";
import { type LocalPushService, makeSubscriber, startPushService } from "../tools/local-push-service.js";
import type { BenchDatabase } from "./database.js";
import { insertUsers, postBatch, seedProducerKey } from "./producer-ingest.js";
import type { Verdict } from "./report.js";
import { type RunningServer, startServer } from "./servers.js";

const USERS = 100;
const BATCHES = 10;
const SLOW_MS = 300;
const SETTLE_TIMEOUT_MS = 300_000;

export type PushCollapseResult = {
  pushes: number;
  topics: number;
  sends: number;
  superseded: number;
  failed: number;
  /** Topics whose newest push was the last to arrive at its subscription. */
  newestArrived: number;
  postMs: number;
  settleMs: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function settled(sql: postgres.Sql): Promise<{ superseded: number; failed: number }> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const [row] = await sql<{ queued: number; superseded: number; failed: number }[]>`
      select count(*) filter (where status = 'queued')::int as queued, count(*) filter (where status = 'superseded')::int as superseded,
             count(*) filter (where status not in ('queued', 'sent', 'superseded'))::int as failed
      from push_deliveries where event_id like 'collapse-%'`;
    if (row!.queued === 0) return row!;
    if (Date.now() > deadline) throw new Error(`push-collapse: ${row!.queued} deliveries still queued`);
    await sleep(50);
  }
}

export async function measurePushCollapse(
  db: BenchDatabase,
  productEnv: Record<string, string>,
  log: (message: string) => void,
): Promise<PushCollapseResult> {
  const sql = db.sql;
  const pushService: LocalPushService = await startPushService();
  const users = await insertUsers(sql, "collapse-user", USERS);
  const apiKey = await seedProducerKey(sql);
  const subscribers = users.map(() => makeSubscriber());
  const endpoints = users.map(() => pushService.endpoint(`delay-${SLOW_MS}`));
  await sql`insert into push_subscriptions ${sql(
    users.map((userId, u) => ({ user_id: userId, endpoint: endpoints[u]!, p256dh: subscribers[u]!.p256dh, auth: subscribers[u]!.auth })),
  )}`;
  let server: RunningServer | undefined;
  try {
    server = await startServer("product", "./product-server.ts", productEnv);
    const started = Date.now();
    for (let b = 0; b < BATCHES; b++) {
      const events = users.map((userId, u) => ({
        eventId: `collapse-${b}-${u}`,
        userId,
        type: "system.score",
        title: `v${b}`,
        topic: `t-${u}`,
      }));
      const results = await postBatch(server.origin, apiKey, { events });
      if (results.some((r) => r.status !== "created")) throw new Error(`push-collapse: batch ${b}: ${JSON.stringify(results[0])}`);
    }
    const postMs = Date.now() - started;
    const { superseded, failed } = await settled(sql);
    const settleMs = Date.now() - started;
    const newestArrived = endpoints.filter((endpoint, u) => {
      const got = pushService.received.filter((r) => endpoint.endsWith(r.path));
      const last = got.at(-1);
      return last !== undefined && (subscribers[u]!.decrypt(last.body) as { title: string }).title === `v${BATCHES - 1}`;
    }).length;
    const result = {
      pushes: USERS * BATCHES,
      topics: USERS,
      sends: pushService.received.length,
      superseded,
      failed,
      newestArrived,
      postMs,
      settleMs,
    };
    log(
      `push-collapse: ${result.sends} sends for ${result.pushes} pushes, ${superseded} superseded, ${newestArrived}/${USERS} newest arrived`,
    );
    return result;
  } finally {
    await server?.stop();
    await pushService.close();
  }
}

export function pushCollapseTable(r: PushCollapseResult): string {
  return [
    "| measurement | value | what it is |",
    "|---|---:|---|",
    `| pushes queued | ${r.pushes} on ${r.topics} topics | ${BATCHES} batches of ${USERS} events, one per user and topic each, posted back to back in ${r.postMs} ms |`,
    `| **sends made** | **${r.sends}** | requests that reached the push service (each answering after ${SLOW_MS} ms) |`,
    `| **sends collapse saved** | **${r.superseded} (${((100 * r.superseded) / r.pushes).toFixed(0)} %)** | deliveries superseded by a newer push of their topic before they were sent; without topics all ${r.pushes} are sent |`,
    `| failed | ${r.failed} | deliveries neither sent nor superseded |`,
    `| each topic's newest push arrived last | ${r.newestArrived} / ${r.topics} | nothing lost: the state a user is left with is the newest |`,
    `| settled | ${r.settleMs} ms | from the first POST until no delivery is queued |`,
  ].join("\n");
}

export function pushCollapseVerdicts(r: PushCollapseResult): Verdict[] {
  return [
    {
      target: "collapse saves sends to slow subscriptions",
      met: r.superseded > 0 && r.sends + r.superseded === r.pushes,
      detail: `${r.sends} sent + ${r.superseded} superseded = ${r.sends + r.superseded} of ${r.pushes}`,
    },
    {
      target: "no loss: every topic's newest push arrives, nothing fails",
      met: r.newestArrived === r.topics && r.failed === 0,
      detail: `${r.newestArrived} / ${r.topics} newest arrived last; ${r.failed} failed`,
    },
  ];
}
