// A property of the producer API: for random batches (repeated eventIds, unknown users, bad events) between
// random preference changes, every result says exactly what was stored: a created event has its
// notification (or none when in-app is off), as many queued deliveries as `push` says, and why none was
// queued when none was; a duplicate, a suppressed or a rejected event stores nothing new.
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { CATEGORIES, type Category } from "../../db/categories.js";
import { apiKeys, notificationEvents, notifications, pushDeliveries } from "../../db/schema/index.js";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { eventFor, producer } from "../helpers/producers.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const TYPE_OF: Record<Category, string> = {
  messages: "message.x",
  leads: "lead.x",
  reviews: "review.x",
  billing: "invoice.x",
  account: "account.x",
  system: "system.x",
};

type Command =
  | { kind: "batch"; events: { user: number; id: number; category: Category; bad: boolean }[] }
  | { kind: "prefs"; user: number; category: Category; inApp?: boolean; push?: boolean };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant("batch" as const),
    events: fc.array(
      fc.record({
        user: fc.integer({ min: 0, max: 3 }),
        id: fc.integer({ min: 0, max: 5 }),
        category: fc.constantFrom(...CATEGORIES),
        bad: fc.boolean(),
      }),
      { minLength: 1, maxLength: 8 },
    ),
  }),
  fc.record(
    {
      kind: fc.constant("prefs" as const),
      user: fc.integer({ min: 0, max: 2 }),
      category: fc.constantFrom(...CATEGORIES),
      inApp: fc.boolean(),
      push: fc.boolean(),
    },
    { requiredKeys: ["kind", "user", "category"] },
  ),
);

describe("producer API: results match what is stored", () => {
  // Push on (deliveries are queued), at endpoints nothing answers: the queue's attempts do not matter here.
  const t = useTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 50 },
    deliveries: { pollMs: 60_000 },
  });
  const p = producer(t);

  it("holds for random batches and preference changes", async () => {
    const users: TestUser[] = [];
    for (let i = 0; i < 3; i++) {
      const user = await t().signUp();
      for (let s = 0; s < i; s++) {
        const keys = makeSubscriber();
        const subscribed = await t().app.inject({
          method: "POST",
          url: "/api/notifications/subscriptions",
          headers: user.headers,
          payload: { endpoint: `http://127.0.0.1:9/push/${user.id}/${s}`, p256dh: keys.p256dh, auth: keys.auth },
        });
        expect(subscribed.statusCode, subscribed.body).toBe(200);
      }
      users.push(user);
    }
    // The users and their preferences outlive each run: the model follows what the service answered.
    const prefs = new Map<string, { inApp: boolean; push: boolean }>();
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 6 }), async (commands) => {
        const key = await p.key();
        const made = new Map<string, string | null>();
        const runId = Math.random().toString(36).slice(2, 8);
        for (const c of commands) {
          if (c.kind === "prefs") {
            const user = users[c.user]!;
            const res = await t().app.inject({
              method: "PATCH",
              url: "/api/notifications/preferences",
              headers: user.headers,
              payload: { [c.category]: { inApp: c.inApp, push: c.push } },
            });
            expect(res.statusCode).toBe(200);
            const now = (res.json().data as { preferences: Record<string, { inApp: boolean; push: boolean }> }).preferences;
            for (const category of CATEGORIES) prefs.set(`${c.user}|${category}`, now[category]!);
            continue;
          }
          const events = c.events.map((e) =>
            eventFor(e.user === 3 ? "no-such-user" : users[e.user]!.id, {
              eventId: `${runId}-${e.id}`,
              type: TYPE_OF[e.category],
              ...(e.bad ? { title: "" } : {}),
            }),
          );
          const results = await p.results(key, events);
          for (const [i, e] of c.events.entries()) {
            const eventId = `${runId}-${e.id}`;
            const result = results[i]!;
            const choice = prefs.get(`${e.user}|${e.category}`) ?? { inApp: true, push: true };
            // In ingest.ts's order: the event's own fields, a repeat, its user, the user's preferences.
            const expected = e.bad
              ? "rejected"
              : made.has(eventId)
                ? "duplicate"
                : e.user === 3
                  ? "rejected"
                  : !choice.inApp && !choice.push
                    ? "suppressed"
                    : "created";
            expect({ eventId, status: result.status }).toEqual({ eventId, status: expected });
            if (expected === "created") {
              made.set(eventId, result.notificationId);
              expect(result.notificationId !== null).toBe(choice.inApp);
              expect(result.push).toBe(choice.push ? e.user : 0);
              const stored = result.notificationId
                ? await t().db.db.select().from(notifications).where(eq(notifications.id, result.notificationId))
                : [];
              expect(stored.length).toBe(choice.inApp ? 1 : 0);
              const deliveries = await t().db.db.select().from(pushDeliveries).where(eq(pushDeliveries.eventId, eventId));
              expect(deliveries.length).toBe(result.push);
              // Why none was queued, kept with the event: the user's choice, else their lack of a subscription.
              const [event] = await t().db.db.select().from(notificationEvents).where(eq(notificationEvents.eventId, eventId));
              expect(event!.noPush).toBe(!choice.push ? "push_off" : e.user === 0 ? "no_subscription" : null);
            } else if (expected === "duplicate") {
              expect(result.notificationId).toBe(made.get(eventId));
            }
          }
        }
        const [{ name }] = (await t().db.db.select({ name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.id, key.id))) as [
          { name: string },
        ];
        const rows = await t().db.db.select().from(notificationEvents).where(eq(notificationEvents.producer, name));
        expect(rows.map((r) => r.eventId).sort()).toEqual([...made.keys()].sort());
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
