// A server without VAPID keys and with the default endpoint rule (https: only): the one unwrapped error
// (docs/api.md#errors), and what browsers are told.
import { describe, expect, it } from "vitest";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { useTestApp } from "../helpers/app.js";

describe("push without VAPID keys", () => {
  const t = useTestApp();

  it('POST /test/push answers exactly HTTP 500 {"error":"VAPID not configured"}', async () => {
    const admin = await t().signUp({ admin: true });
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: admin.headers,
      payload: { type: "message.received", title: "Hi", targetUserId: admin.id },
    });
    expect(res.statusCode).toBe(500);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body).toBe('{"error":"VAPID not configured"}');
  });

  it("the testPush procedure fails with the same message, as an internal error, and says how to set the keys", async () => {
    const admin = await t().signUp({ admin: true });
    await expect(t().caller(admin).notifications.testPush({ type: "x", title: "x", targetUserId: admin.id })).rejects.toMatchObject({
      kind: "INTERNAL_ERROR",
      message: "VAPID not configured",
      details: [
        { field: "VAPID_PUBLIC_KEY", message: expect.stringContaining("npx web-push generate-vapid-keys") },
        { field: "VAPID_PRIVATE_KEY", message: expect.any(String) },
        { field: "VAPID_SUBJECT", message: expect.stringContaining("docs/api.md#web-push-keys") },
      ],
    });
  });

  it("GET /vapid-public-key answers null", async () => {
    const user = await t().signUp();
    const res = await t().app.inject({ method: "GET", url: "/api/notifications/vapid-public-key", headers: user.headers });
    expect(res.json()).toEqual({ success: true, data: { publicKey: null } });
  });

  it("refuses http: push endpoints unless PUSH_ALLOW_HTTP_ENDPOINTS is set", async () => {
    const user = await t().signUp();
    const { p256dh, auth } = makeSubscriber();
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/subscriptions",
      headers: user.headers,
      payload: { endpoint: "http://127.0.0.1:9/push/x", p256dh, auth },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "endpoint", message: "must be an https: URL" }],
    });
  });
});
