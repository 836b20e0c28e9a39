// A browser's push subscription, made as a browser would: fresh keys (tools/local-push-service.ts's
// subscriber, which can decrypt what is sent to it), registered over REST by the user; a push service that
// holds a send for as long as a test wants; a delivery queued straight into the table.
import { randomBytes } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { Db } from "../../db/client.js";
import { notificationEvents, pushDeliveries, pushSubscriptions } from "../../db/schema/index.js";
import { makeSubscriber, type Subscriber } from "../../tools/local-push-service.js";
import type { TestApp, TestUser } from "./app.js";

export async function subscribeAt(
  app: TestApp,
  user: TestUser,
  endpoint: string,
): Promise<{ id: string; endpoint: string; subscriber: Subscriber }> {
  const subscriber = makeSubscriber();
  const res = await app.app.inject({
    method: "POST",
    url: "/api/notifications/subscriptions",
    headers: user.headers,
    payload: { endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth },
  });
  expect(res.statusCode, res.body).toBe(200);
  return { id: (res.json().data as { subscription: { id: string } }).subscription.id, endpoint, subscriber };
}

/** One request that reached a holding push service. */
export type HeldRequest = { path: string; arrivedAt: number; open: boolean; closed: Promise<void> };

/**
 * A push service on 127.0.0.1 whose endpoints hold their first request unanswered until the test calls
 * `release()`, and answer 201 to any later one. It notes whether a request ever arrived while an earlier one
 * to the same endpoint was still open (`overlaps`): the second send the queue's lease must rule out.
 */
export type HoldingPushService = {
  endpoint(): string;
  requests: HeldRequest[];
  /** Paths that had two requests open at once. */
  overlaps: string[];
  /** Resolves once `count` requests have arrived in all. */
  arrived(count: number): Promise<void>;
  /** Answers every held request 201 (those whose client is still waiting). */
  release(): void;
  close(): Promise<void>;
};

export async function startHoldingPushService(): Promise<HoldingPushService> {
  const requests: HeldRequest[] = [];
  const overlaps: string[] = [];
  const held: ServerResponse[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    const path = req.url ?? "/";
    if (requests.some((r) => r.path === path && r.open)) overlaps.push(path);
    const first = !requests.some((r) => r.path === path);
    let markClosed = () => {};
    const request: HeldRequest = { path, arrivedAt: Date.now(), open: true, closed: new Promise((resolve) => (markClosed = resolve)) };
    // The client gave up (aborted) or the answer went out: either way this send is over.
    res.on("close", () => {
      request.open = false;
      markClosed();
    });
    requests.push(request);
    for (const w of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    if (first) held.push(res);
    else res.writeHead(201).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint: () => `${origin}/push/held/${randomBytes(8).toString("hex")}`,
    requests,
    overlaps,
    arrived: (count) => (requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    release() {
      for (const res of held.splice(0)) if (!res.writableEnded && !res.destroyed) res.writeHead(201).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A subscription of `userId` at `endpoint` and one queued delivery to it, written as ingest would. */
export async function queueDeliveryTo(db: Db, userId: string, endpoint: string): Promise<{ deliveryId: string; subscriber: Subscriber }> {
  const subscriber = makeSubscriber();
  const [subscription] = await db
    .insert(pushSubscriptions)
    .values({ userId, endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth })
    .returning({ id: pushSubscriptions.id });
  const [delivery] = await db
    .insert(pushDeliveries)
    .values({
      producer: "test",
      eventId: `evt-${randomBytes(6).toString("hex")}`,
      subscriptionId: subscription!.id,
      payload: { title: "Hi", body: null, url: null },
      urgency: "high",
    })
    .returning({ id: pushDeliveries.id });
  return { deliveryId: delivery!.id, subscriber };
}

/**
 * A producer event of `userId` made at `createdAt`, with one delivery to a subscription of theirs made then
 * too (retention tests age rows by their own clock).
 */
export async function agedEvent(db: Db, userId: string, createdAt: Date): Promise<{ eventId: string; deliveryId: string }> {
  const eventId = `evt-${randomBytes(6).toString("hex")}`;
  const subscriber = makeSubscriber();
  const [subscription] = await db
    .insert(pushSubscriptions)
    .values({ userId, endpoint: `https://push.example.test/${eventId}`, p256dh: subscriber.p256dh, auth: subscriber.auth })
    .returning({ id: pushSubscriptions.id });
  await db.insert(notificationEvents).values({ producer: "test", eventId, userId, createdAt });
  const [delivery] = await db
    .insert(pushDeliveries)
    .values({
      producer: "test",
      eventId,
      subscriptionId: subscription!.id,
      payload: { title: "Old news", body: "kept only so long", url: null },
      urgency: "low",
      status: "sent",
      createdAt,
    })
    .returning({ id: pushDeliveries.id });
  return { eventId, deliveryId: delivery!.id };
}
