// Topic collapse and the payload's size against the local push service (tools/local-push-service.ts), which
// keeps each request's headers and answers 413 to a body over 4096 bytes as real push services do
// (docs/api.md#topic-collapse, docs/api.md#declarative-payloads).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { notifications } from "../../db/schema/index.js";
import { type LocalPushService, MAX_PUSH_BYTES, startPushService } from "../../tools/local-push-service.js";
import { useTestApp } from "../helpers/app.js";
import { type EventStatus, eventFor, producer } from "../helpers/producers.js";
import { subscribeAt } from "../helpers/push.js";
import { waitFor } from "../helpers/wait.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("push topics and payload size", () => {
  const t = useTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 300, ttlSeconds: 3600 },
    // A minute between attempts: a delivery answered 503 once stays queued, unleased, for the test to supersede.
    deliveries: { retryBaseMs: 60_000, pollMs: 50 },
    appBaseUrl: "https://app.example.com",
  });
  const p = producer(t);
  let pushService: LocalPushService;
  beforeAll(async () => {
    pushService = await startPushService();
  });
  afterAll(async () => {
    await pushService?.close();
  });

  const settled = (key: { headers: Record<string, string> }, eventId: string, done: (s: EventStatus) => boolean) =>
    waitFor(async () => (await p.status(key, eventId)).json().data as EventStatus, done, { withinMs: 10_000, what: `${eventId} settled` });

  it("sends the topic as the Topic header, and a declarative payload old service workers still read", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const sub = await subscribeAt(t(), user, pushService.endpoint(201));
    const event = eventFor(user.id, { topic: "thread-t9", title: "Ana", body: "Tuesday?", url: "/inbox/9" });
    await p.results(key, [event]);
    const status = await settled(key, event.eventId, (s) => s.deliveries[0]?.status === "sent");
    const [received] = pushService.received.filter((r) => sub.endpoint.endsWith(r.path));
    expect(received!.headers.topic).toBe("thread-t9");
    expect(status.deliveries[0]!.topic).toBe("thread-t9");
    const payload = sub.subscriber.decrypt(received!.body) as Record<string, unknown>;
    expect(payload).toMatchObject({
      web_push: 8030,
      notification: {
        title: "Ana",
        body: "Tuesday?",
        navigate: expect.stringMatching(/^https:\/\/app\.example\.com\/inbox\/9\?push_receipt=/),
      },
      app_badge: 1,
      title: "Ana",
      body: "Tuesday?",
      url: "/inbox/9",
      data: { notificationId: status.notificationId, receipt: expect.any(String) },
    });
  });

  it("a topic outside RFC 8030's alphabet or over 32 characters rejects that event alone", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const results = await p.results(key, [
      eventFor(user.id, { topic: "a".repeat(33) }),
      eventFor(user.id, { topic: "has space" }),
      eventFor(user.id, { topic: "ok_topic-1" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "created"]);
    expect(results[0]!.error).toMatch(/^topic: must be 1 to 32 characters/);
  });

  it("a newer push of the same topic supersedes one still queued: never sent, and the inbox keeps both", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const sub = await subscribeAt(t(), user, pushService.endpoint("503-then-201"));
    const older = eventFor(user.id, { topic: "score", title: "1-0" });
    await p.results(key, [older]);
    // Its first attempt got a 503: queued again for a minute, no instance holding it.
    await settled(key, older.eventId, (s) => s.deliveries[0]?.lastStatusCode === 503 && s.deliveries[0].status === "queued");
    const newer = eventFor(user.id, { topic: "score", title: "2-0" });
    await p.results(key, [newer]);
    await settled(key, newer.eventId, (s) => s.deliveries[0]?.status === "sent");
    const olderStatus = (await p.status(key, older.eventId)).json().data as EventStatus;
    expect(olderStatus.deliveries[0]).toMatchObject({ status: "superseded", attempts: 1, sentAt: null });
    expect(olderStatus.funnel.superseded).toBe(1);
    const titles = pushService.received
      .filter((r) => sub.endpoint.endsWith(r.path))
      .map((r) => (sub.subscriber.decrypt(r.body) as { title: string }).title);
    expect(titles).toEqual(["1-0", "2-0"]);
    const inbox = await t().db.db.select({ title: notifications.title }).from(notifications).where(eq(notifications.userId, user.id));
    expect(inbox.map((n) => n.title).sort()).toEqual(["1-0", "2-0"]);
  });

  it("within one batch only the last push of a topic is queued; other topics and none are untouched", async () => {
    const key = await p.key();
    const user = await t().signUp();
    await subscribeAt(t(), user, pushService.endpoint(201));
    const events = [
      eventFor(user.id, { topic: "a", title: "a1" }),
      eventFor(user.id, { topic: "b", title: "b1" }),
      eventFor(user.id, { topic: "a", title: "a2" }),
      eventFor(user.id, { title: "none" }),
    ];
    await p.results(key, events);
    const statuses = await Promise.all(events.map((e) => settled(key, e.eventId, (s) => s.deliveries[0]?.status !== "queued")));
    expect(statuses.map((s) => s.deliveries[0]!.status)).toEqual(["superseded", "sent", "sent", "sent"]);
    const inApp = await t()
      .db.db.select()
      .from(notifications)
      .where(and(eq(notifications.userId, user.id)));
    expect(inApp).toHaveLength(4);
  });

  it("a body too large is cut to fit 4096 bytes encrypted at ingest, so the push service never answers 413", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const sub = await subscribeAt(t(), user, pushService.endpoint(201));
    // 2000 three-byte characters, twice in the payload: 12 KB before cutting.
    const event = eventFor(user.id, { body: "€".repeat(2000), url: `/inbox/${"x".repeat(1500)}` });
    expect((await p.results(key, [event]))[0]).toMatchObject({ status: "created", push: 1 });
    const status = await settled(key, event.eventId, (s) => s.deliveries[0]?.status !== "queued");
    expect(status.deliveries[0]).toMatchObject({ status: "sent", lastStatusCode: 201 });
    const [received] = pushService.received.filter((r) => sub.endpoint.endsWith(r.path));
    expect(received!.body.length).toBeLessThanOrEqual(MAX_PUSH_BYTES);
    const payload = sub.subscriber.decrypt(received!.body) as { body: string; notification: { body: string } };
    expect(payload.body).toMatch(/^€+…$/);
    expect(payload.notification.body).toBe(payload.body);
    // The inbox keeps the whole body.
    const [stored] = await t().db.db.select().from(notifications).where(eq(notifications.userId, user.id));
    expect(stored!.body).toBe("€".repeat(2000));
  });

  it("a push too large even without its body rejects that event at ingest, naming why", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const [result] = await p.results(key, [
      eventFor(user.id, { title: "€".repeat(200), url: `https://app.example.com/${"y".repeat(2000)}` }),
    ]);
    expect(result).toMatchObject({
      status: "rejected",
      error: expect.stringMatching(/^push: the push would be \d+ bytes encrypted even without its body, over the 4096/),
    });
  });
});
