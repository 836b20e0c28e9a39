// A push answered by the push service while its delivery cannot be recorded (found by the chaos soak: a
// database outage right after a send left the delivery claimed, and another instance sent it again when the
// lease ran out, with no crash anywhere). The outage is forced: push_deliveries is locked past the deadline by
// a second session at the moment the push service answers.
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushDeliveries } from "../../db/schema/index.js";
import { type DeliveryQueue, startDeliveryQueue } from "../../server/push/delivery-queue.js";
import { createPushService } from "../../server/push/sender.js";
import { useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { type HoldingPushService, queueDeliveryTo, startHoldingPushService } from "../helpers/push.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("a push sent while its delivery cannot be recorded (PostgreSQL)", () => {
  const t = useTestApp({ dbQueryTimeoutSeconds: 1 });
  const push = createPushService({ vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true });
  let holding: HoldingPushService;
  let locker: postgres.Sql;
  let queue: DeliveryQueue | undefined;

  beforeAll(async () => {
    holding = await startHoldingPushService();
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    locker = postgres(process.env.TEST_DATABASE_URL!.replace(/\/[^/]*$/, `/${row!.name}`), { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await queue?.stop();
    await holding?.close();
    await locker?.end();
  });

  it("records the send once the database answers again, and never sends it a second time", async () => {
    const user = await t().signUp();
    const { deliveryId } = await queueDeliveryTo(t().db.db, user.id, holding.endpoint());
    queue = startDeliveryQueue({ db: t().db.db, push, retryBaseMs: 50, pollMs: 20, leaseSeconds: 6, onError: () => {} });
    await holding.arrived(1);

    await locker.begin(async (tx) => {
      await tx`lock table push_deliveries in access exclusive mode`;
      // The push service answers now: the queue's recording waits on the lock past its 1 s deadline and fails.
      holding.release();
      const waiting = () => tx`select count(*)::int as n from pg_locks where relation = 'push_deliveries'::regclass and not granted`;
      await waitFor(waiting, (rows) => rows[0]!.n > 0, { withinMs: 10_000, what: "the recording waiting on the lock" });
      await waitFor(waiting, (rows) => rows[0]!.n === 0, { withinMs: 10_000, what: "the recording cancelled at its deadline" });
    });

    const row = await waitFor(
      async () => (await t().db.db.select().from(pushDeliveries).where(eq(pushDeliveries.id, deliveryId)))[0]!,
      (d) => d.status === "sent",
      { withinMs: 20_000, what: "the delivery recorded as sent" },
    );
    expect(row.attempts).toBe(1);
    // Sent once: recorded by the instance that sent it, not sent again when its lease ran out.
    expect(holding.requests.length).toBe(1);
  });
});
