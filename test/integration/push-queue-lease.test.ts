// A push is sent once unless its instance dies (docs/api.md#durable-push-delivery): two queue instances on
// one database, one of them held at a chosen point (its send held by the push service, or paused between
// its claim and its send) while its lease runs out.
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushDeliveries } from "../../db/schema/index.js";
import { type DeliveryQueue, type DeliveryQueueOptions, startDeliveryQueue } from "../../server/push/delivery-queue.js";
import { createPushService } from "../../server/push/sender.js";
import { type LocalPushService, startPushService } from "../../tools/local-push-service.js";
import { useTestApp } from "../helpers/app.js";
import { type HoldingPushService, queueDeliveryTo, startHoldingPushService } from "../helpers/push.js";
import { waitFor } from "../helpers/wait.js";

const LEASE_SECONDS = 2;
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("a push delivery's lease", () => {
  // No VAPID keys for the app: its own queue stays off, the tests start theirs.
  const t = useTestApp();
  // Sends time out after 10 s, far past the lease: only the lease can end a held send sooner.
  const push = createPushService({ vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true });
  let holding: HoldingPushService;
  let answering: LocalPushService;
  let queues: DeliveryQueue[] = [];
  const errors: unknown[] = [];
  /** Lets go of an instance a test holds, should the test end early. */
  let letGo = () => {};
  beforeAll(async () => {
    holding = await startHoldingPushService();
    answering = await startPushService();
  });
  afterEach(async () => {
    letGo();
    await Promise.all(queues.map((q) => q.stop()));
    queues = [];
    expect(errors).toEqual([]);
  });
  afterAll(async () => {
    await holding?.close();
    await answering?.close();
  });

  function instance(more: Partial<DeliveryQueueOptions> = {}): DeliveryQueue {
    const queue = startDeliveryQueue({
      db: t().db.db,
      push,
      retryBaseMs: 50,
      pollMs: 20,
      leaseSeconds: LEASE_SECONDS,
      onError: (err) => errors.push(err),
      ...more,
    });
    queues.push(queue);
    return queue;
  }

  const deliveryRow = async (id: string) => (await t().db.db.select().from(pushDeliveries).where(eq(pushDeliveries.id, id)))[0]!;

  it("a send held past its lease is never joined by a second one; the delivery is then sent once", async () => {
    const user = await t().signUp();
    const { deliveryId } = await queueDeliveryTo(t().db.db, user.id, holding.endpoint());
    instance();
    await holding.arrived(1);
    const [first] = holding.requests;
    // A second instance polls the same queue while the first send is held unanswered.
    instance();
    // Whichever comes first: the first send ends (its instance cuts it before the lease ends), or a second
    // send arrives (another instance took the delivery once the lease was over).
    await Promise.race([first!.closed, holding.arrived(2)]);
    expect(holding.overlaps).toEqual([]);
    expect(first!.open).toBe(false);
    // The push service answers the held send now; nobody is waiting for it any more.
    holding.release();
    const sent = await waitFor(
      () => deliveryRow(deliveryId),
      (d) => d.status === "sent",
      { withinMs: 10_000, what: "the delivery sent by its retry" },
    );
    // The cut send was a timeout, retried as any timeout; never two sends at once.
    expect(sent).toMatchObject({ attempts: 2, lastStatusCode: 201, leaseUntil: null, leaseToken: null });
    expect(holding.requests).toHaveLength(2);
    expect(holding.requests[1]!.arrivedAt).toBeGreaterThanOrEqual(first!.arrivedAt);
    expect(holding.overlaps).toEqual([]);
  });

  it("a claim whose lease ran out before its send sends nothing and uses no attempt", async () => {
    const user = await t().signUp();
    const endpoint = answering.endpoint(201);
    const { deliveryId } = await queueDeliveryTo(t().db.db, user.id, endpoint);
    let claimedByFirst!: () => void;
    const firstClaimed = new Promise<void>((resolve) => (claimedByFirst = resolve));
    let resumeFirst!: () => void;
    const firstResumes = new Promise<void>((resolve) => (resumeFirst = resolve));
    letGo = resumeFirst;
    // The first instance stops right after its claim, as if its database waits outlasted the lease.
    const first = instance({
      afterClaim: async () => {
        claimedByFirst();
        await firstResumes;
      },
    });
    await firstClaimed;
    // The second takes the delivery once the lease is over and sends it.
    instance();
    await waitFor(
      () => deliveryRow(deliveryId),
      (d) => d.status === "sent",
      { withinMs: 10_000, what: "the delivery sent by the second instance" },
    );
    resumeFirst();
    await first.drained();
    const received = answering.received.filter((r) => endpoint.endsWith(r.path));
    expect(received).toHaveLength(1);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "sent", attempts: 1, lastStatusCode: 201 });
  });
});
