// docs/api.md#live-unread-count: GET /api/notifications/stream sends the caller's unread count on connect
// and after every change (in-app creation, read, read-all, delete, bulk delete), announced by the database
// at commit; a burst inside one statement is one event, a change that leaves the count as it was none; the
// stream ends on sign-out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notificationStreamsOpen } from "../../server/observability/metrics.js";
import { TEST_ORIGIN, type TestUser, useTestApp } from "../helpers/app.js";
import { nextCount, openSse, type SseStream } from "../helpers/sse.js";

const t = useTestApp();
let base: string;
beforeAll(async () => {
  base = await t().app.listen({ port: 0, host: "127.0.0.1" });
});

const streams: SseStream[] = [];
afterAll(() => {
  for (const s of streams) s.close();
});

async function stream(user: TestUser) {
  const s = await openSse(`${base}/api/notifications/stream`, user.headers);
  streams.push(s);
  return s;
}

async function createFor(admin: TestUser, target: TestUser, title = "Hello") {
  const res = await t().app.inject({
    method: "POST",
    url: "/api/notifications/test/in-app",
    headers: admin.headers,
    payload: { type: "message.received", title, targetUserId: target.id },
  });
  return res.json().data.notification.id as string;
}

describe("GET /api/notifications/stream", () => {
  it("answers 401 with the envelope without a session or with a forged one", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer forged-token" },
      { cookie: "better-auth.session_token=forged" },
    ];
    for (const headers of attempts) {
      const res = await fetch(`${base}/api/notifications/stream`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ success: false, error: { code: "UNAUTHORIZED" } });
    }
  });

  it("carries the same counts to the tRPC subscription notifications.onUnreadCount", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const s = await openSse(`${base}/trpc/notifications.onUnreadCount`, user.headers);
    streams.push(s);
    const counts = async () => {
      for (;;) {
        const event = await s.next(1_000);
        const data = JSON.parse(event.data) as { json?: { count?: number } };
        if (typeof data.json?.count === "number") return data.json.count;
      }
    };
    expect(await counts()).toBe(0);
    await createFor(admin, user);
    expect(await counts()).toBe(1);
  });

  it("sends the count on connect and after every kind of change, within a second", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const first = await createFor(admin, user, "before connecting");
    const s = await stream(user);
    expect(s.status).toBe(200);
    expect(s.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await nextCount(s)).toBe(1);

    const second = await createFor(admin, user);
    expect(await nextCount(s, 1_000)).toBe(2);
    await t().caller(user).notifications.markRead({ id: first });
    expect(await nextCount(s, 1_000)).toBe(1);
    const third = await createFor(admin, user);
    expect(await nextCount(s, 1_000)).toBe(2);
    await t().caller(user).notifications.remove({ id: third });
    expect(await nextCount(s, 1_000)).toBe(1);
    await t().caller(user).notifications.markAllRead({});
    expect(await nextCount(s, 1_000)).toBe(0);
    await createFor(admin, user);
    expect(await nextCount(s, 1_000)).toBe(1);
    const all = (await t().caller(user).notifications.list({})).notifications.map((n) => n.id);
    await t()
      .caller(user)
      .notifications.removeMany({ ids: [...all, second] });
    expect(await nextCount(s, 1_000)).toBe(0);
  });

  it("announces a burst inside one statement once: read-all over many unread is one event", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    for (let i = 0; i < 5; i++) await createFor(admin, user, `n${i}`);
    const s = await stream(user);
    expect(await nextCount(s)).toBe(5);
    await t().caller(user).notifications.markAllRead({});
    expect(await nextCount(s, 1_000)).toBe(0);
    await createFor(admin, user, "after");
    // The next event is the new notification's: nothing came between.
    expect(await nextCount(s, 1_000)).toBe(1);
  });

  it("sends nothing for a change that leaves the count as it was: reading a read notification, deleting a read one", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const read = await createFor(admin, user, "to read");
    await createFor(admin, user, "stays unread");
    const s = await stream(user);
    expect(await nextCount(s)).toBe(2);
    await t().caller(user).notifications.markRead({ id: read });
    expect(await nextCount(s, 1_000)).toBe(1);

    await t().caller(user).notifications.markRead({ id: read });
    await t().caller(user).notifications.remove({ id: read });
    await createFor(admin, user, "after");
    // The next event is the new notification's: the two changes before it sent none.
    expect(await nextCount(s, 1_000)).toBe(2);
  });

  it("follows each user's own count only, and ends a stream when its session signs out", async () => {
    const admin = await t().signUp({ admin: true });
    const [alice, bob] = [await t().signUp(), await t().signUp()];
    const [a, b] = [await stream(alice), await stream(bob)];
    expect([await nextCount(a), await nextCount(b)]).toEqual([0, 0]);
    await createFor(admin, bob);
    expect(await nextCount(b, 1_000)).toBe(1);

    const open = async () => (await notificationStreamsOpen.get()).values[0]?.value ?? 0;
    const before = await open();
    const signOut = await fetch(`${base}/api/auth/sign-out`, { method: "POST", headers: { ...alice.headers, origin: TEST_ORIGIN } });
    expect(signOut.status).toBe(200);
    await a.ended(2_000);
    // The metric of open streams counts it out (docs/operators.md#metrics).
    await expect.poll(open).toBe(before - 1);
    // Alice's stream saw nothing of Bob's notification before it ended.
    await expect(a.next(100)).rejects.toThrow(/ended|no event/);
  });
});
