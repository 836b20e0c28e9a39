// The producer API (docs/producers.md#sending-notifications-from-a-service): batches of events from a service with
// a notifications:write key, each event's result beside the others', duplicates per producer, preferences
// honoured, what became of an event, and the live badge moving as for any notification.
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { notificationEvents, notifications, pushDeliveries } from "../../db/schema/index.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { eventFor, producer } from "../helpers/producers.js";
import { snapshotTables } from "../helpers/snapshot.js";

describe("the producer API", () => {
  const t = useTestApp();
  const p = producer(t);

  it("creates a notification per event, and a repeat of an eventId (later or in the same batch) is a duplicate of the first", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const first = eventFor(user.id, { type: "lead.new", title: "A new lead", url: "/leads/7", data: { leadId: 7 } });
    const [created] = await p.results(key, [first]);
    expect(created).toEqual({ eventId: first.eventId, status: "created", notificationId: expect.any(String), push: 0 });
    const [row] = await t().db.db.select().from(notifications).where(eq(notifications.id, created!.notificationId!));
    expect(row).toMatchObject({
      userId: user.id,
      eventType: "lead.new",
      category: "leads",
      title: "A new lead",
      data: { leadId: 7, url: "/leads/7" },
    });

    const again = eventFor(user.id);
    const results = await p.results(key, [first, again, again]);
    expect(results.map((r) => [r.status, r.notificationId])).toEqual([
      ["duplicate", created!.notificationId],
      ["created", expect.any(String)],
      ["duplicate", results[1]!.notificationId],
    ]);
    const stored = await t().db.db.select().from(notifications).where(eq(notifications.userId, user.id));
    expect(stored).toHaveLength(2);
    // Another producer's eventIds are its own.
    const [other] = await p.results(await p.key(), [first]);
    expect(other!.status).toBe("created");
  });

  it("rejects a bad event beside the good ones, naming what is wrong, and stores nothing for it", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const events = [
      eventFor(user.id),
      eventFor("no-such-user"),
      eventFor(user.id, { title: "  " }),
      eventFor(user.id, { eventId: "has space" }),
      eventFor(user.id, { data: [1, 2] }),
      eventFor(user.id, { extra: true }),
      "not an event",
      eventFor(user.id),
    ];
    const results = await p.results(key, events);
    expect(results.map((r) => r.status)).toEqual([
      "created",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
      "rejected",
      "created",
    ]);
    expect(results.map((r) => r.error)).toEqual([
      undefined,
      "userId: no such user",
      "title: must not be empty",
      "eventId: must be 1 to 255 visible ASCII characters",
      expect.stringMatching(/^data: /),
      expect.stringMatching(/extra/),
      expect.any(String),
      undefined,
    ]);
    expect(results[3]!.eventId).toBeNull();
    const rows = await t().db.db.select().from(notificationEvents).where(eq(notificationEvents.userId, user.id));
    expect(rows.map((r) => r.eventId).sort()).toEqual([events[0], events[7]].map((e) => (e as { eventId: string }).eventId).sort());
  });

  it("rejects an event whose data holds text PostgreSQL cannot store (a lone surrogate, NUL), naming the field, beside the good ones", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const events = [
      eventFor(user.id),
      eventFor(user.id, { data: { title: "\ud800" } }),
      eventFor(user.id, { data: { thread: { tags: ["ok", "a\u0000b"] } } }),
      eventFor(user.id, { data: { "key\u0000": 1 } }),
      eventFor(user.id, { data: { "x\udfff": "fine" } }),
      eventFor(user.id),
    ];
    const results = await p.results(key, events);
    expect(results.map((r) => [r.status, r.error])).toEqual([
      ["created", undefined],
      ["rejected", "data.title: must be well-formed Unicode (no lone surrogates)"],
      ["rejected", "data.thread.tags.1: must not contain NUL characters"],
      ["rejected", 'data: the key "key\\u0000" must not contain NUL characters'],
      ["rejected", 'data: the key "x\\udfff" must be well-formed Unicode (no lone surrogates)'],
      ["created", undefined],
    ]);
    const rows = await t().db.db.select().from(notificationEvents).where(eq(notificationEvents.userId, user.id));
    expect(rows.map((r) => r.eventId).sort()).toEqual([events[0]!.eventId, events[5]!.eventId].sort());
  });

  it("refuses a whole batch that is malformed, empty or over 100 events, and stores nothing", async () => {
    // Used a moment ago: its lastUsedAt, the one thing a request with it may write, is not due.
    const key = await insertApiKey(t().db.db, { scopes: ["notifications:write"], lastUsedAt: new Date() });
    const user = await t().signUp();
    const before = await snapshotTables(t().db.db);
    for (const [events, raw] of [
      [Array.from({ length: 101 }, () => eventFor(user.id)), undefined],
      [[], undefined],
      ["events", undefined],
      [undefined, '{"events": [{"eventId": "x"'],
      [undefined, '{"batch": []}'],
    ] as const) {
      const res = await p.send(key, events, raw);
      expect({ status: res.statusCode, code: res.json().error?.code }).toEqual({ status: 400, code: "VALIDATION_ERROR" });
    }
    expect(await snapshotTables(t().db.db)).toEqual(before);
  });

  it("takes a key with notifications:write only: none, unknown, revoked 401; flags:read 403; a session 401", async () => {
    const user = await t().signUp();
    const admin = await t().signUp({ admin: true });
    const cases = {
      none: null,
      unknown: { headers: { "x-api-key": "rk_unknown" } },
      revoked: await insertApiKey(t().db.db, { scopes: ["notifications:write"], revokedAt: new Date() }),
      "flags:read": await insertApiKey(t().db.db, { scopes: ["flags:read"] }),
      "an admin's session": { headers: admin.headers },
    };
    const statuses: Record<string, number[]> = {};
    for (const [name, key] of Object.entries(cases)) {
      const sent = await p.send(key, [eventFor(user.id)]);
      const read = await t().app.inject({ method: "GET", url: "/api/notifications/events/x", headers: key?.headers ?? {} });
      statuses[name] = [sent.statusCode, read.statusCode];
    }
    expect(statuses).toEqual({
      none: [401, 401],
      unknown: [401, 401],
      revoked: [401, 401],
      "flags:read": [403, 403],
      "an admin's session": [401, 401],
    });
  });

  it("honours each user's preferences per category: in-app off stores no notification, both off suppresses; the admin test endpoint ignores them", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const patch = await t().app.inject({
      method: "PATCH",
      url: "/api/notifications/preferences",
      headers: user.headers,
      payload: { reviews: { inApp: false }, billing: { inApp: false, push: false } },
    });
    expect(patch.statusCode).toBe(200);
    const [review, bill, message] = await p.results(key, [
      eventFor(user.id, { type: "review.posted" }),
      eventFor(user.id, { type: "invoice.paid" }),
      eventFor(user.id, { type: "message.received" }),
    ]);
    expect(review).toMatchObject({ status: "created", notificationId: null });
    expect(bill).toMatchObject({ status: "suppressed", notificationId: null, push: 0 });
    expect(message).toMatchObject({ status: "created", notificationId: expect.any(String) });
    const [suppressed] = await t()
      .db.db.select()
      .from(notificationEvents)
      .where(and(eq(notificationEvents.userId, user.id), eq(notificationEvents.eventId, bill!.eventId!)));
    expect(suppressed).toBeUndefined();

    const admin = await t().signUp({ admin: true });
    const test = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/in-app",
      headers: admin.headers,
      payload: { type: "invoice.paid", title: "Test", targetUserId: user.id },
    });
    expect(test.statusCode).toBe(200);
  });

  it("tells what became of an event; another producer's or an unknown eventId is 404", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const event = eventFor(user.id);
    const [result] = await p.results(key, [event]);
    const res = await p.status(key, event.eventId);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      eventId: event.eventId,
      notificationId: result!.notificationId,
      userId: user.id,
      createdAt: expect.any(String),
      // The test app has no VAPID keys.
      noPush: "push_not_configured",
      deliveries: [],
      funnel: {
        ...Object.fromEntries(
          ["queued", "accepted", "displayed", "clicked"].map((stage) => [stage, { count: 0, firstAt: null, lastAt: null }]),
        ),
        superseded: 0,
      },
    });
    expect((await p.status(await p.key(), event.eventId)).statusCode).toBe(404);
    expect((await p.status(key, "evt-unknown")).statusCode).toBe(404);
    expect(await t().db.db.select().from(pushDeliveries).where(eq(pushDeliveries.eventId, event.eventId))).toEqual([]);
  });
});
