// Every /api/notifications row over HTTP (app.inject): the envelope, status codes, ISO timestamps, how
// query strings and bodies become inputs, and authentication on every row.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { notificationRoutes } from "../../server/rest/routes.js";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { type Envelope, ISO, type WireOutput } from "../helpers/rest.js";

const BASE = "/api/notifications";

type Method = "GET" | "POST" | "PATCH" | "DELETE";
type NotificationPage = WireOutput<"notifications.list">;
type Subscriptions = WireOutput<"notifications.listSubscriptions">;
type AllSubscriptions = WireOutput<"notifications.testListSubscriptions">;

describe("notifications over REST", () => {
  const t = useTestApp();

  /** `T`: the data of a success. */
  async function call<T = unknown>(user: TestUser | null, method: Method, url: string, payload?: object, headers = {}) {
    const res = await t().app.inject({ method, url, headers: { ...user?.headers, ...headers }, payload });
    return { status: res.statusCode, body: res.json() as Envelope<T> };
  }

  /** Creates notifications for `target` through the admin test endpoint; returns their ids, newest last. */
  async function createFor(target: TestUser, items: { type: string; title: string; body?: string; url?: string }[]) {
    const admin = await t().signUp({ admin: true });
    const ids: string[] = [];
    for (const item of items) {
      const res = await call<WireOutput<"notifications.testInApp">>(admin, "POST", `${BASE}/test/in-app`, {
        ...item,
        targetUserId: target.id,
      });
      expect(res.status).toBe(200);
      ids.push(res.body.data!.notification.id);
    }
    return ids;
  }

  it("every row requires a signed-in caller (401 UNAUTHORIZED)", async () => {
    expect(notificationRoutes.length).toBe(17);
    for (const route of notificationRoutes) {
      const res = await call(null, route.method, route.path.replace(":id", randomUUID()), {});
      expect(res, `${route.method} ${route.path}`).toEqual({
        status: 401,
        body: { success: false, error: { code: "UNAUTHORIZED", message: "Authentication required" } },
      });
    }
  });

  it("every /test/* row requires a platform admin (403 FORBIDDEN)", async () => {
    const user = await t().signUp();
    const testRoutes = notificationRoutes.filter((r) => r.path.startsWith(`${BASE}/test/`));
    expect(testRoutes.map((r) => `${r.method} ${r.path.slice(BASE.length)}`).sort()).toEqual([
      "DELETE /test/subscriptions",
      "GET /test/subscriptions",
      "POST /test/in-app",
      "POST /test/push",
    ]);
    for (const route of testRoutes) {
      const res = await call(user, route.method, route.path, { type: "x", title: "x", targetUserId: user.id });
      expect(res.status, `${route.method} ${route.path}`).toBe(403);
      expect(res.body.error!.code).toBe("FORBIDDEN");
    }
  });

  it("POST /test/in-app answers {notification} with ISO timestamps and parsed data", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const res = await call<WireOutput<"notifications.testInApp">>(admin, "POST", `${BASE}/test/in-app`, {
      type: "review.posted",
      title: "New review",
      url: "/reviews/9",
      targetUserId: target.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const { notification } = res.body.data!;
    expect(notification).toEqual({
      id: expect.any(String),
      userId: target.id,
      eventType: "review.posted",
      category: "reviews",
      title: "New review",
      body: null,
      dateCreated: expect.stringMatching(ISO),
      readAt: null,
      data: { url: "/reviews/9" },
    });
    const missing = await call(admin, "POST", `${BASE}/test/in-app`, { title: "x" });
    expect(missing.status).toBe(400);
    expect(missing.body.error!.code).toBe("VALIDATION_ERROR");
    expect(missing.body.error!.details!.map((d) => d.field).sort()).toEqual(["targetUserId", "type"]);
  });

  it("GET / lists with query-string filters and paging; GET /unread-count counts", async () => {
    const user = await t().signUp();
    await createFor(user, [
      { type: "invoice.due", title: "Invoice 100% due" },
      { type: "message.received", title: "Hi there", body: "Message body" },
      { type: "lead.new", title: "Lead" },
    ]);
    const all = await call<NotificationPage>(user, "GET", BASE);
    expect(all.status).toBe(200);
    expect(all.body.data).toMatchObject({ total: 3, unread_count: 3, page: 1, has_more: false });
    expect(all.body.data!.notifications.map((n) => n.title)).toEqual(["Lead", "Hi there", "Invoice 100% due"]);
    expect(all.body.data!.notifications[0]!.dateCreated).toMatch(ISO);

    const billing = await call(user, "GET", `${BASE}?category=billing`);
    expect(billing.body.data).toMatchObject({ total: 1, unread_count: 3 });
    expect((await call<NotificationPage>(user, "GET", `${BASE}?category=bogus`)).body.data!.total).toBe(3);
    expect((await call<NotificationPage>(user, "GET", `${BASE}?search=${encodeURIComponent("%")}`)).body.data!.total).toBe(1);
    expect((await call<NotificationPage>(user, "GET", `${BASE}?search=MESSAGE%20BODY`)).body.data!.total).toBe(1);

    const paged = await call<NotificationPage>(user, "GET", `${BASE}?page=2&limit=1&page=9&limit=50`);
    expect(paged.body.data).toMatchObject({ page: 2, total: 3, has_more: true });
    expect(paged.body.data!.notifications.map((n) => n.title)).toEqual(["Hi there"]);
    const odd = await call<NotificationPage>(user, "GET", `${BASE}?page=abc&limit=0`);
    expect(odd.body.data).toMatchObject({ page: 1, has_more: false });
    expect(odd.body.data!.notifications).toHaveLength(3);

    expect(await call(user, "GET", `${BASE}/unread-count`)).toEqual({ status: 200, body: { success: true, data: { count: 3 } } });
  });

  it("PATCH /:id/read and DELETE /:id: success, 404 naming the id, 403 Access denied for someone else's", async () => {
    const owner = await t().signUp();
    const other = await t().signUp();
    const [id] = await createFor(owner, [{ type: "lead.new", title: "Mine" }]);

    const denied = { status: 403, body: { success: false, error: { code: "FORBIDDEN", message: "Access denied" } } };
    expect(await call(other, "PATCH", `${BASE}/${id}/read`)).toEqual(denied);
    expect(await call(other, "DELETE", `${BASE}/${id}`)).toEqual(denied);

    expect(await call(owner, "PATCH", `${BASE}/${id}/read`)).toEqual({ status: 200, body: { success: true, data: { success: true } } });
    const listed = await call<NotificationPage>(owner, "GET", BASE);
    expect(listed.body.data!.notifications[0]!.readAt).toMatch(ISO);
    expect(listed.body.data!.unread_count).toBe(0);

    expect(await call(owner, "DELETE", `${BASE}/${id}`)).toEqual({ status: 200, body: { success: true, data: { success: true } } });
    expect((await call<NotificationPage>(owner, "GET", BASE)).body.data!.total).toBe(0);

    for (const missing of [id, randomUUID(), "not-a-uuid"]) {
      const notFound = {
        status: 404,
        body: { success: false, error: { code: "NOT_FOUND", message: `Notification ${missing} not found` } },
      };
      expect(await call(owner, "PATCH", `${BASE}/${missing}/read`)).toEqual(notFound);
      expect(await call(owner, "DELETE", `${BASE}/${missing}`)).toEqual(notFound);
    }
  });

  it("PATCH /read-all?category= marks a valid category read, everything for an invalid or missing one, and answers {updated}", async () => {
    const user = await t().signUp();
    await createFor(user, [
      { type: "payment.failed", title: "a" },
      { type: "message.received", title: "b" },
      { type: "message.received", title: "c" },
    ]);
    expect((await call(user, "PATCH", `${BASE}/read-all?category=messages`)).body).toEqual({ success: true, data: { updated: 2 } });
    expect((await call(user, "PATCH", `${BASE}/read-all?category=nope`)).body.data).toEqual({ updated: 1 });
    expect((await call(user, "PATCH", `${BASE}/read-all`)).body.data).toEqual({ updated: 0 });
  });

  it("DELETE /bulk takes {ids} from the body, answers {deleted}, and validates ids", async () => {
    const user = await t().signUp();
    const other = await t().signUp();
    const mine = await createFor(user, [
      { type: "x", title: "1" },
      { type: "x", title: "2" },
      { type: "x", title: "3" },
    ]);
    const [theirs] = await createFor(other, [{ type: "x", title: "theirs" }]);
    const res = await call(user, "DELETE", `${BASE}/bulk`, { ids: [mine[0], mine[1], theirs, "junk"] });
    expect(res).toEqual({ status: 200, body: { success: true, data: { deleted: 2 } } });
    expect((await call<NotificationPage>(user, "GET", BASE)).body.data!.total).toBe(1);
    expect((await call<NotificationPage>(other, "GET", BASE)).body.data!.total).toBe(1);

    for (const payload of [undefined, {}, { ids: "x" }, { ids: [] }]) {
      const bad = await call(user, "DELETE", `${BASE}/bulk`, payload);
      expect(bad.status, JSON.stringify(payload)).toBe(400);
      expect(bad.body).toEqual({
        success: false,
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid input",
          details: [{ field: "ids", message: "ids array required and non-empty" }],
        },
      });
    }
  });

  it("POST, GET and DELETE /subscriptions subscribe with the user-agent stored, list, refuse missing keys or endpoint, and unsubscribe", async () => {
    const user = await t().signUp();
    const { p256dh, auth } = makeSubscriber();
    const endpoint = `https://push.example.test/${randomUUID()}`;
    const created = await call<WireOutput<"notifications.subscribe">>(
      user,
      "POST",
      `${BASE}/subscriptions`,
      { endpoint, p256dh, auth },
      {
        "user-agent": "Safari/18",
      },
    );
    expect(created.status).toBe(200);
    expect(created.body.data!.subscription).toMatchObject({
      userId: user.id,
      endpoint,
      p256dh,
      auth,
      userAgent: "Safari/18",
      isActive: true,
      createdAt: expect.stringMatching(ISO),
    });
    const listed = await call<Subscriptions>(user, "GET", `${BASE}/subscriptions`);
    expect(listed.body.data!.subscriptions.map((s) => s.endpoint)).toEqual([endpoint]);

    const missing = await call(user, "POST", `${BASE}/subscriptions`, { endpoint });
    expect(missing.status).toBe(400);
    expect(missing.body.error!.details!.map((d) => d.field).sort()).toEqual(["auth", "p256dh"]);
    const noEndpoint = await call(user, "DELETE", `${BASE}/subscriptions`, {});
    expect(noEndpoint.status).toBe(400);
    expect(noEndpoint.body.error!.details).toEqual([{ field: "endpoint", message: "is required" }]);

    expect(await call(user, "DELETE", `${BASE}/subscriptions`, { endpoint })).toEqual({
      status: 200,
      body: { success: true, data: { success: true } },
    });
    expect((await call<Subscriptions>(user, "GET", `${BASE}/subscriptions`)).body.data!.subscriptions).toEqual([]);
  });

  it("GET /test/subscriptions lists everyone's; DELETE /test/subscriptions clears the admin's own", async () => {
    const admin = await t().signUp({ admin: true, name: "Root" });
    const user = await t().signUp({ name: "Someone" });
    const subscribe = async (who: TestUser) => {
      const { p256dh, auth } = makeSubscriber();
      const endpoint = `https://push.example.test/${randomUUID()}`;
      await call(who, "POST", `${BASE}/subscriptions`, { endpoint, p256dh, auth });
      return endpoint;
    };
    const adminEndpoint = await subscribe(admin);
    const userEndpoint = await subscribe(user);
    const find = (list: { endpoint: string }[], endpoint: string) => list.find((s) => s.endpoint === endpoint);

    const before = (await call<AllSubscriptions>(admin, "GET", `${BASE}/test/subscriptions`)).body.data!.subscriptions;
    expect(find(before, userEndpoint)).toMatchObject({ userId: user.id, userName: "Someone", userEmail: user.email, isActive: true });
    expect(find(before, adminEndpoint)).toMatchObject({ userName: "Root", isActive: true });

    expect(await call(admin, "DELETE", `${BASE}/test/subscriptions`)).toEqual({
      status: 200,
      body: { success: true, data: { success: true } },
    });
    const after = (await call<AllSubscriptions>(admin, "GET", `${BASE}/test/subscriptions`)).body.data!.subscriptions;
    expect(find(after, adminEndpoint)).toMatchObject({ isActive: false });
    expect(find(after, userEndpoint)).toMatchObject({ isActive: true });
  });
});
