// Durable push delivery (docs/api.md#durable-push-delivery) against a local push service: each answer's
// effect on the delivery (201 sent, 503 then 201 retried, 429 waits its Retry-After, 410 gone and the
// subscription deactivated, a 400 failed at once, a service that is down failed after 5 attempts), the
// TTL and Urgency headers, the decrypted payload, and the live badge moving for a producer's notification.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema/index.js";
import { type Behaviour, type LocalPushService, startPushService } from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { freePort } from "../helpers/net.js";
import { type EventStatus, eventFor, producer } from "../helpers/producers.js";
import { subscribeAt } from "../helpers/push.js";
import { nextCount, openSse } from "../helpers/sse.js";
import { waitFor } from "../helpers/wait.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const RETRY_BASE_MS = 100;

describe("durable push delivery", () => {
  const t = useTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 300, ttlSeconds: 3600 },
    deliveries: { retryBaseMs: RETRY_BASE_MS, pollMs: 50 },
  });
  const p = producer(t);
  let pushService: LocalPushService;
  beforeAll(async () => {
    pushService = await startPushService();
  });
  afterAll(async () => {
    await pushService?.close();
  });

  const subscribe = (user: TestUser, endpoint: string) => subscribeAt(t(), user, endpoint);

  /** Sends one event to a user subscribed at an endpoint that answers as told; waits until its delivery settles. */
  async function deliverTo(behaviour: Behaviour | string, event: Record<string, unknown> = {}) {
    const key = await p.key();
    const user = await t().signUp();
    const endpoint =
      typeof behaviour === "string" && behaviour.startsWith("http") ? behaviour : pushService.endpoint(behaviour as Behaviour);
    const sub = await subscribe(user, endpoint);
    const sent = eventFor(user.id, event);
    const [result] = await p.results(key, [sent]);
    expect(result).toMatchObject({ status: "created", push: 1 });
    const settled = await waitFor(
      async () => (await p.status(key, sent.eventId)).json().data as EventStatus,
      (status) => status.deliveries.every((d) => d.status !== "queued"),
      { withinMs: 15_000, what: `the delivery to ${behaviour} settled` },
    );
    return { settled: settled.deliveries[0]!, sub, received: pushService.received.filter((r) => endpoint.endsWith(r.path)) };
  }

  it("201: sent once, with the payload, TTL and the category's Urgency", async () => {
    const { settled, sub, received } = await deliverTo(201, { type: "message.received", title: "Hi", body: "there", url: "/inbox/9" });
    expect(settled).toMatchObject({ status: "sent", attempts: 1, lastStatusCode: 201, lastError: null, sentAt: expect.any(String) });
    expect(received).toHaveLength(1);
    expect(received[0]!.headers).toMatchObject({ ttl: "3600", urgency: "high" });
    expect(sub.subscriber.decrypt(received[0]!.body)).toMatchObject({ title: "Hi", body: "there", url: "/inbox/9" });
    const low = await deliverTo(201, { type: "system.maintenance" });
    expect(low.received[0]!.headers.urgency).toBe("low");
  });

  it("503 then 201: retried after the base delay, sent at the second attempt", async () => {
    const { settled, received } = await deliverTo("503-then-201");
    expect(settled).toMatchObject({ status: "sent", attempts: 2, lastStatusCode: 201 });
    expect(received).toHaveLength(2);
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(RETRY_BASE_MS / 2);
  });

  it("429 with Retry-After: 1: the next attempt waits at least that long", async () => {
    const { settled, received } = await deliverTo("429-then-201");
    expect(settled).toMatchObject({ status: "sent", attempts: 2 });
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it("410: gone at once, the subscription deactivated; a 400 fails at once", async () => {
    const gone = await deliverTo(410);
    expect(gone.settled).toMatchObject({ status: "gone", attempts: 1, lastStatusCode: 410 });
    const [row] = await t().db.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.id, gone.sub.id));
    expect(row!.isActive).toBe(false);
    const refused = await deliverTo(400);
    expect(refused.settled).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 400 });
  });

  it("a push service that is down: failed after 5 attempts, each recorded", async () => {
    const down = `http://127.0.0.1:${await freePort()}/push/down`;
    const { settled } = await deliverTo(down);
    expect(settled).toMatchObject({
      status: "failed",
      attempts: 5,
      lastStatusCode: null,
      lastError: expect.stringMatching(/network|timeout/),
    });
  });

  it("moves the live badge for a producer's notification as for any other", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const base = await t().app.listen({ port: 0, host: "127.0.0.1" });
    const stream = await openSse(`${base}/api/notifications/stream`, { authorization: user.headers.authorization });
    expect(await nextCount(stream)).toBe(0);
    await p.results(key, [eventFor(user.id), eventFor(user.id)]);
    expect(await nextCount(stream)).toBe(2);
    stream.close();
  });
});
