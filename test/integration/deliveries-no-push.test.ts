// Issue U.9: why an event queued no push, told apart (push off by the user's choice, no VAPID keys, no active
// subscription) in the producer's GET /api/notifications/events/:eventId and the admin Deliveries answer; and
// the Deliveries answer names each event's user by email and name, and is filtered by an email (any case).
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema/index.js";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { type TestApp, type TestUser, useTestApp } from "../helpers/app.js";
import { eventFor, producer } from "../helpers/producers.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

async function subscribe(app: TestApp, user: TestUser, n: number) {
  const keys = makeSubscriber();
  const res = await app.app.inject({
    method: "POST",
    url: "/api/notifications/subscriptions",
    headers: user.headers,
    payload: { endpoint: `http://127.0.0.1:9/push/${user.id}/${n}`, p256dh: keys.p256dh, auth: keys.auth },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe("with push configured", () => {
  // Endpoints nothing answers, a queue that waits: what was queued is what matters here.
  const t = useTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 50 },
    deliveries: { pollMs: 60_000 },
  });
  const p = producer(t);

  it("tells push turned off, no subscription and an inactive one apart from a queued push, in both answers", async () => {
    const key = await p.key();
    const [pushOff, unsubscribed, lapsed, subscribed] = [await t().signUp(), await t().signUp(), await t().signUp(), await t().signUp()];
    await t()
      .caller(pushOff)
      .notifications.updatePreferences({ messages: { push: false } });
    await subscribe(t(), pushOff, 1);
    await subscribe(t(), lapsed, 1);
    await t().db.db.update(pushSubscriptions).set({ isActive: false });
    await subscribe(t(), subscribed, 1);
    const events = [pushOff, unsubscribed, lapsed, subscribed].map((u) => eventFor(u.id));
    const results = await p.results(key, events);
    expect(results.map((r) => [r.status, r.push])).toEqual([
      ["created", 0],
      ["created", 0],
      ["created", 0],
      ["created", 1],
    ]);

    const expected = ["push_off", "no_subscription", "no_subscription", null];
    for (const [i, event] of events.entries()) {
      const res = await p.status(key, event.eventId);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({
        eventId: event.eventId,
        noPush: expected[i],
        deliveries: expected[i] ? [] : [expect.any(Object)],
      });
    }
    const admin = await t().signUp({ admin: true });
    const { events: listed } = await t().caller(admin).deliveries.recent({ limit: 4 });
    // One batch, one created_at: the order among them is the eventIds'.
    const byId = (rows: [string, string | null][]) => rows.sort(([a], [b]) => a.localeCompare(b));
    expect(byId(listed.map((e) => [e.eventId, e.noPush]))).toEqual(byId(events.map((e, i) => [e.eventId, expected[i]!])));
  });
});

describe("without VAPID keys", () => {
  const t = useTestApp();
  const p = producer(t);

  it("says push is not configured, unless the user turned push off", async () => {
    const key = await p.key();
    const [user, pushOff] = [await t().signUp(), await t().signUp()];
    // The door refuses http: endpoints here (no PUSH_ALLOW_HTTP_ENDPOINTS): an active subscription stored as is.
    await t().db.db.insert(pushSubscriptions).values({ userId: user.id, endpoint: "https://push.example/1", p256dh: "k", auth: "a" });
    await t()
      .caller(pushOff)
      .notifications.updatePreferences({ messages: { push: false } });
    const events = [eventFor(user.id), eventFor(pushOff.id)];
    await p.results(key, events);
    expect((await p.status(key, events[0]!.eventId)).json().data.noPush).toBe("push_not_configured");
    expect((await p.status(key, events[1]!.eventId)).json().data.noPush).toBe("push_off");
  });

  it("names each event's user by email and name, and filters by an email in any case", async () => {
    const key = await p.key();
    const ana = await t().signUp({ name: "Ana Lima", email: `ana-${Date.now()}@example.test` });
    const bo = await t().signUp();
    const [forAna, forBo] = [eventFor(ana.id), eventFor(bo.id)];
    await p.results(key, [forAna, forBo]);
    const admin = await t().signUp({ admin: true });

    const res = await t().app.inject({
      method: "GET",
      url: `/api/admin/deliveries?userEmail=${encodeURIComponent(ana.email.toUpperCase())}`,
      headers: admin.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.events).toEqual([
      expect.objectContaining({ eventId: forAna.eventId, userId: ana.id, userEmail: ana.email, userName: "Ana Lima" }),
    ]);

    const api = t().caller(admin).deliveries;
    expect((await api.recent({ userEmail: ` ${bo.email} ` })).events.map((e) => e.eventId)).toEqual([forBo.eventId]);
    expect((await api.recent({ userEmail: "nobody@example.test" })).events).toEqual([]);
    // Both filters: the email and the id must name the same user.
    expect((await api.recent({ userEmail: ana.email, userId: bo.id })).events).toEqual([]);
    expect((await api.recent({ userEmail: ana.email, userId: ana.id })).events.map((e) => e.eventId)).toEqual([forAna.eventId]);
  });
});
