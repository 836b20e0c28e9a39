// Collapse against a sender (docs/guarantees.md, "A superseded push is never sent"): a queue instance's claim,
// its send under way, a newer push of the same topic superseding at each of those points, and the lease running
// out before the send. Each case: a superseded delivery was never sent, a sent one was never superseded, and
// the newer one is sent once. The points are hooks of the queue (afterClaim, the push service's attempt), so
// each order is forced, not hoped for.
import { randomBytes } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import type { Db } from "../../db/client.js";
import { pushDeliveries, pushSubscriptions } from "../../db/schema/index.js";
import { supersedeQueued } from "../../server/push/collapse.js";
import { startDeliveryQueue } from "../../server/push/delivery-queue.js";
import { createPushService } from "../../server/push/sender.js";
import { type LocalPushService, makeSubscriber, startPushService } from "../../tools/local-push-service.js";
import { useTestApp } from "../helpers/app.js";
import { waitFor } from "../helpers/wait.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const TOPIC = "score";

/**
 * A delivery of `title` on TOPIC, written as ingest writes one; with `supersede`, in ingest's own transaction,
 * noting the ids it superseded.
 */
async function queuePush(db: Db, subscriptionId: string, title: string, superseded?: string[]): Promise<string> {
  return db.transaction(async (tx) => {
    if (superseded) superseded.push(...(await supersedeQueued(tx, [{ subscriptionId, topic: TOPIC }])));
    const [row] = await tx
      .insert(pushDeliveries)
      .values({
        producer: "race",
        eventId: `evt-${randomBytes(6).toString("hex")}`,
        subscriptionId,
        payload: { title },
        urgency: "high",
        topic: TOPIC,
      })
      .returning({ id: pushDeliveries.id });
    return row!.id;
  });
}

describe("topic collapse racing a sender", () => {
  // No VAPID keys for the app: its own queue stays off, each case starts its own.
  const t = useTestApp();
  const push = createPushService({ vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true });
  let service: LocalPushService;
  beforeAll(async () => {
    service = await startPushService();
  });
  afterAll(async () => {
    await service?.close();
  });

  type Point = "before the claim" | "after the claim" | "during the send" | "after the send";
  /**
   * Each point the newer push may come at, and whether the older's lease has run out by then (a slow or dead
   * instance). During the send the lease cannot run out: the send is cut before it does (delivery-queue.ts).
   */
  const cases: { at: Point; leaseRunsOut: boolean; older: "superseded" | "sent" }[] = [
    { at: "before the claim", leaseRunsOut: false, older: "superseded" },
    { at: "after the claim", leaseRunsOut: false, older: "sent" },
    { at: "after the claim", leaseRunsOut: true, older: "superseded" },
    { at: "during the send", leaseRunsOut: false, older: "sent" },
    { at: "after the send", leaseRunsOut: false, older: "sent" },
  ];

  it.each(cases)(
    "the newer push $at (lease run out: $leaseRunsOut): the older is $older, and sent only if not superseded",
    async ({ at, leaseRunsOut, older: expected }) => {
      const user = await t().signUp();
      const db = t().db.db;
      const endpoint = service.endpoint(201);
      const subscriber = makeSubscriber();
      const [subscription] = await db
        .insert(pushSubscriptions)
        .values({ userId: user.id, endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth })
        .returning({ id: pushSubscriptions.id });
      const older = await queuePush(db, subscription!.id, "older");
      const superseded: string[] = [];
      let newer: string | null = null;
      const newerPush = async () => {
        if (newer) return;
        if (leaseRunsOut)
          await db.update(pushDeliveries).set({ leaseUntil: sql`now() - interval '1 second'` }).where(eq(pushDeliveries.id, older));
        newer = await queuePush(db, subscription!.id, "newer", superseded);
      };
      if (at === "before the claim") await newerPush();
      const errors: unknown[] = [];
      const queue = startDeliveryQueue({
        db,
        push: {
          ...push,
          async attempt(target, body, options) {
            const sending = (JSON.parse(body) as { title: string }).title === "older";
            if (sending && at === "during the send") await newerPush();
            const answer = await push.attempt(target, body, options);
            return answer;
          },
        },
        retryBaseMs: 50,
        pollMs: 10,
        onError: (err) => errors.push(err),
        afterClaim: async (ids) => {
          if (ids.includes(older) && at === "after the claim") await newerPush();
        },
      });
      if (at === "after the send") {
        await waitFor(
          () => db.select().from(pushDeliveries).where(eq(pushDeliveries.id, older)),
          ([r]) => r?.status === "sent",
          { withinMs: 10_000, what: "the older sent" },
        );
        await newerPush();
        queue.wake();
      }
      const rows = await waitFor(
        async () =>
          newer
            ? db
                .select()
                .from(pushDeliveries)
                .where(inArray(pushDeliveries.id, [older, newer]))
            : [],
        (rs) => rs.length === 2 && rs.every((r) => r.status !== "queued"),
        { withinMs: 10_000, what: "both deliveries settled" },
      );
      await queue.stop();
      expect(errors).toEqual([]);
      const titles = service.received
        .filter((r) => endpoint.endsWith(r.path))
        .map((r) => (subscriber.decrypt(r.body) as { title: string }).title);
      const olderRow = rows.find((r) => r.id === older)!;
      expect(rows.find((r) => r.id === newer)!.status).toBe("sent");
      expect(titles.filter((title) => title === "newer")).toHaveLength(1);
      // Superseded once means superseded for good: never sent, before or after, and never marked otherwise.
      expect(olderRow.status).toBe(expected);
      expect(superseded.includes(older)).toBe(expected === "superseded");
      expect(titles.filter((title) => title === "older")).toHaveLength(expected === "sent" ? 1 : 0);
      if (expected === "superseded") expect(olderRow.attempts).toBe(0);
    },
  );
});
