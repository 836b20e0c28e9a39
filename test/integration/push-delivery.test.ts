// POST /test/push end to end against a local push service: the payload decrypted as a browser would
// (aes128gcm with real P-256 keys), the VAPID JWT verified, and each push-service answer's effect
// (docs/api.md#admin-test-endpoints). The push service here is http:, which PUSH_ALLOW_HTTP_ENDPOINTS admits.
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema/index.js";
import {
  type Behaviour,
  type LocalPushService,
  makeSubscriber,
  startPushService,
  verifyVapidAuthorization,
} from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { freePort } from "../helpers/net.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const TIMEOUT_MS = 500;

describe("push delivery", () => {
  const t = useTestApp({ push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: TIMEOUT_MS } });
  let pushService: LocalPushService;
  beforeAll(async () => {
    pushService = await startPushService();
  });
  afterAll(async () => {
    await pushService?.close();
  });

  /** Subscribes `user` over REST, as a browser would, at an endpoint of the local push service or at `url`. */
  async function subscribe(user: TestUser, behaviour: Behaviour, url?: string) {
    const subscriber = makeSubscriber();
    const endpoint = url ?? pushService.endpoint(behaviour);
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/subscriptions",
      headers: { ...user.headers, "user-agent": "TestBrowser/1.0" },
      payload: { endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth },
    });
    expect(res.statusCode).toBe(200);
    const { subscription } = res.json().data as { subscription: { id: string; endpoint: string } };
    return { ...subscription, subscriber };
  }

  const sendTestPush = (admin: TestUser, payload: Record<string, unknown>) =>
    t().app.inject({ method: "POST", url: "/api/notifications/test/push", headers: admin.headers, payload });

  const receivedAt = (endpoint: string) => pushService.received.filter((r) => endpoint.endsWith(r.path));

  it("delivers an encrypted {title, body, url} payload with a valid VAPID JWT", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const sub = await subscribe(target, 201);
    const before = Math.floor(Date.now() / 1000);

    const res = await sendTestPush(admin, {
      type: "message.received",
      title: "Hello",
      body: "You have a message",
      url: "https://app.example.test/inbox",
      targetUserId: target.id,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: { sent: 1, failed: 0, deactivated: 0, results: [{ subscriptionId: sub.id, statusCode: 201, ok: true }] },
    });

    const [request] = receivedAt(sub.endpoint);
    expect(request).toBeDefined();
    expect(request!.headers["content-encoding"]).toBe("aes128gcm");
    expect(Number(request!.headers.ttl)).toBeGreaterThan(0);
    expect(sub.subscriber.decrypt(request!.body)).toMatchObject({
      title: "Hello",
      body: "You have a message",
      url: "https://app.example.test/inbox",
    });
    const claims = verifyVapidAuthorization(request!.headers.authorization, vapid.publicKey);
    expect(claims.aud).toBe(pushService.origin);
    expect(claims.sub).toBe(vapid.subject);
    expect(claims.exp).toBeGreaterThan(before);
    expect(claims.exp).toBeLessThanOrEqual(before + 24 * 60 * 60 + 5);
  });

  it("sends null body and url when they are absent", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const sub = await subscribe(target, 200);
    const res = await sendTestPush(admin, { type: "system.ping", title: "Ping", targetUserId: target.id });
    expect(res.json().data).toMatchObject({ sent: 1, failed: 0 });
    expect(sub.subscriber.decrypt(receivedAt(sub.endpoint)[0]!.body)).toMatchObject({ title: "Ping", body: null, url: null });
  });

  it("reports each subscription on its own: 404/410 deactivate, 500, a hang and a refused connection are kept", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const bystander = await t().signUp();
    const ok = await subscribe(target, 201);
    const gone = await subscribe(target, 410);
    const notFound = await subscribe(target, 404);
    const broken = await subscribe(target, 500);
    const hang = await subscribe(target, "hang");
    // A port that was free a moment ago: nothing listens there, so the connection is refused.
    const refused = await subscribe(target, 201, `http://127.0.0.1:${await freePort()}/push/refused`);
    const inactive = await subscribe(target, 201);
    await t().caller(target).notifications.unsubscribe({ endpoint: inactive.endpoint });
    const someoneElse = await subscribe(bystander, 201);

    const started = Date.now();
    const result = await t().caller(admin).notifications.testPush({ type: "lead.new", title: "Lead", targetUserId: target.id });
    // Bounded fan-out runs in parallel: the hang costs one timeout, not one per subscription.
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);

    expect(result).toMatchObject({ sent: 1, failed: 5, deactivated: 2 });
    const byId = new Map(result.results.map((r) => [r.subscriptionId, r]));
    expect(byId.get(ok.id)).toEqual({ subscriptionId: ok.id, statusCode: 201, ok: true });
    expect(byId.get(gone.id)).toEqual({ subscriptionId: gone.id, statusCode: 410, ok: false, error: "Subscription gone (HTTP 410)" });
    expect(byId.get(notFound.id)).toMatchObject({ statusCode: 404, ok: false });
    expect(byId.get(broken.id)).toEqual({
      subscriptionId: broken.id,
      statusCode: 500,
      ok: false,
      error: "Push service answered HTTP 500",
    });
    expect(byId.get(hang.id)).toEqual({
      subscriptionId: hang.id,
      statusCode: null,
      ok: false,
      error: `Timed out: no answer within ${TIMEOUT_MS} ms`,
    });
    expect(byId.get(refused.id)).toMatchObject({ statusCode: null, ok: false, error: expect.stringMatching(/^Network error: /) });
    expect(byId.has(inactive.id)).toBe(false);
    expect(byId.has(someoneElse.id)).toBe(false);
    expect(receivedAt(someoneElse.endpoint)).toEqual([]);
    // Every answered request still carried a payload the browser can read.
    expect(broken.subscriber.decrypt(receivedAt(broken.endpoint)[0]!.body)).toMatchObject({ title: "Lead", body: null, url: null });

    const rows = await t()
      .db.db.select({ id: pushSubscriptions.id, isActive: pushSubscriptions.isActive })
      .from(pushSubscriptions)
      .where(inArray(pushSubscriptions.id, [ok.id, gone.id, notFound.id, broken.id, hang.id, refused.id]));
    const active = new Map(rows.map((r) => [r.id, r.isActive]));
    expect([ok, gone, notFound, broken, hang, refused].map((s) => active.get(s.id))).toEqual([true, false, false, true, true, true]);
    const listed = (await t().caller(target).notifications.listSubscriptions()).subscriptions.map((s) => s.id);
    expect(listed).not.toContain(gone.id);
    expect(listed).toContain(hang.id);
  });

  it("reports a subscription whose stored keys cannot be encrypted to, and still sends to the others", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const good = await subscribe(target, 201);
    const bad = await subscribe(target, 201);
    await t().db.db.update(pushSubscriptions).set({ p256dh: "AAAA" }).where(eq(pushSubscriptions.id, bad.id));
    const result = await t().caller(admin).notifications.testPush({ type: "x", title: "x", targetUserId: target.id });
    expect(result).toMatchObject({ sent: 1, failed: 1, deactivated: 0 });
    expect(result.results.find((r) => r.subscriptionId === bad.id)).toMatchObject({
      statusCode: null,
      ok: false,
      error: expect.stringMatching(/^Cannot encrypt for this subscription/),
    });
    expect(receivedAt(bad.endpoint)).toEqual([]);
    expect(receivedAt(good.endpoint)).toHaveLength(1);
  });

  it("answers an empty result for a user without active subscriptions", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const res = await sendTestPush(admin, { type: "x", title: "x", targetUserId: target.id });
    expect(res.json()).toEqual({ success: true, data: { sent: 0, failed: 0, deactivated: 0, results: [] } });
  });

  it("validates the body, requires an existing target and a platform admin", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const missing = await sendTestPush(admin, { type: "x", targetUserId: user.id });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: "VALIDATION_ERROR", details: [expect.objectContaining({ field: "title" })] });
    const unknown = await sendTestPush(admin, { type: "x", title: "x", targetUserId: "no-such-user" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ success: false, error: { code: "NOT_FOUND", message: "User no-such-user not found" } });
    const forbidden = await sendTestPush(user, { type: "x", title: "x", targetUserId: user.id });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe("FORBIDDEN");
  });

  it("hands browsers the VAPID public key, and admits http: endpoints only because the setting says so", async () => {
    const user = await t().signUp();
    const res = await t().app.inject({ method: "GET", url: "/api/notifications/vapid-public-key", headers: user.headers });
    expect(res.json()).toEqual({ success: true, data: { publicKey: vapid.publicKey } });
    const sub = await subscribe(user, 201);
    expect(sub.endpoint.startsWith("http://127.0.0.1:")).toBe(true);
  });
});
