// Hardening of the HTTP shell: security headers, request limits, rate limits, what errors and logs reveal.
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { pros } from "../../db/schema/index.js";
import { TEST_ORIGIN, useTestApp } from "../helpers/app.js";

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.com" };

describe("hardening", () => {
  const t = useTestApp({
    limits: { signIn: { max: 3, timeWindowMs: 60_000 }, testPush: { max: 2, timeWindowMs: 60_000 } },
    logger: { level: "trace", stream: logStream },
    push: { vapid },
  });
  const json = { "content-type": "application/json" };
  const signIn = (email: string, password = "correct-horse-battery") =>
    t().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { origin: TEST_ORIGIN, ...json },
      payload: { email, password },
    });

  it("sends security headers on API answers (OWASP's REST set) and on pages (helmet's)", async () => {
    const res = await t().app.inject({ method: "GET", url: "/health/live" });
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["strict-transport-security"]).toMatch(/max-age=/);
    expect(res.headers["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers["cross-origin-resource-policy"]).toBe("same-origin");
    const page = await t().app.inject({ method: "GET", url: "/openapi.json" });
    expect(page.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(page.headers["content-security-policy"]).toMatch(/default-src 'self'/);
  });

  it("sends them and the request's id on every answer, however it is answered", async () => {
    const answers = {
      "an unknown route": { method: "GET", url: "/api/nope" },
      "no session": { method: "GET", url: "/api/notifications" },
      "a malformed URL (answered while routing)": { method: "GET", url: "/api/notifications/%zz" },
      "a CORS preflight (answered by @fastify/cors)": {
        method: "OPTIONS",
        url: "/api/notifications",
        headers: { origin: TEST_ORIGIN, "access-control-request-method": "GET" },
      },
      "a body that is not JSON": { method: "POST", url: "/api/notifications/read-all", headers: json, payload: "{" },
      "a body of another type": {
        method: "POST",
        url: "/api/notifications/read-all",
        headers: { "content-type": "text/plain" },
        payload: "x",
      },
      "better-auth's answer": { method: "GET", url: "/api/auth/get-session" },
      "an OFREP refusal": { method: "POST", url: "/ofrep/v1/evaluate/flags/restrict-direct-contact", headers: json, payload: "{}" },
    } as const;
    for (const [what, request] of Object.entries(answers)) {
      const res = await t().app.inject({
        ...request,
        headers: { ...("headers" in request ? request.headers : {}), "x-request-id": "req-1" },
      });
      expect.soft(res.headers["x-content-type-options"], what).toBe("nosniff");
      // better-auth's answers keep the pages' policy; the API's own answer with its own.
      const policy = request.url.startsWith("/api/auth/") ? /default-src 'self'/ : /^default-src 'none'; frame-ancestors 'none'$/;
      expect.soft(res.headers["content-security-policy"], what).toMatch(policy);
      expect.soft(res.headers["x-request-id"], what).toBe("req-1");
    }
  });

  it("limits sign-in attempts per address and account with 429 TOO_MANY_REQUESTS", async () => {
    const user = await t().signUp();
    const other = await t().signUp();
    for (let i = 0; i < 3; i++) expect((await signIn(user.email, "wrong-password")).statusCode).toBe(401);
    const limited = await signIn(user.email);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBeDefined();
    expect(limited.json()).toEqual({
      success: false,
      error: { code: "TOO_MANY_REQUESTS", message: "Too many requests; try again later" },
    });
    // Another account from the same address is not locked out by the first one's attempts.
    expect((await signIn(other.email)).statusCode).toBe(200);
  });

  it("limits admin test pushes per caller, through REST and tRPC alike", async () => {
    const admin = await t().signUp({ admin: true });
    const body = { type: "system.test", title: "Ping", targetUserId: admin.id };
    const rest = () =>
      t().app.inject({ method: "POST", url: "/api/notifications/test/push", headers: { ...admin.headers, ...json }, payload: body });
    const trpc = () =>
      t().app.inject({
        method: "POST",
        url: "/trpc/notifications.testPush",
        headers: { ...admin.headers, ...json },
        payload: { json: body },
      });
    expect((await rest()).statusCode).toBe(200);
    expect((await trpc()).statusCode).toBe(200);
    const limitedRest = await rest();
    expect(limitedRest.statusCode).toBe(429);
    expect(limitedRest.json().error.code).toBe("TOO_MANY_REQUESTS");
    expect((await trpc()).statusCode).toBe(429);
    // Another admin has a budget of its own.
    const second = await t().signUp({ admin: true });
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: { ...second.headers, ...json },
      payload: { ...body, targetUserId: second.id },
    });
    expect(res.statusCode).toBe(200);
  });

  it("answers an unexpected failure with a generic 500: no stack, SQL or driver text", async () => {
    const admin = await t().signUp({ admin: true });
    await t().db.db.insert(pros).values({ id: "pro-hardening", name: "P" });
    await t().db.db.execute(sql`alter table pro_restriction_status rename to pro_restriction_status_gone`);
    try {
      const res = await t().app.inject({
        method: "POST",
        url: "/api/admin/restriction/pro-hardening/activate",
        headers: admin.headers,
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ success: false, error: { code: "INTERNAL_ERROR", message: "Internal server error" } });
      expect(res.body).not.toMatch(/pro_restriction_status|relation|select|insert|at \w+ \(/i);
    } finally {
      await t().db.db.execute(sql`alter table pro_restriction_status_gone rename to pro_restriction_status`);
    }
  });

  it("never writes session tokens or passwords to the log", async () => {
    const user = await t().signUp({ admin: true });
    const signedIn = await signIn(user.email);
    const token = signedIn.json().token as string;
    await t().app.inject({ method: "GET", url: "/api/admin/restriction", headers: { authorization: `Bearer ${token}` } });
    await t().app.inject({ method: "GET", url: "/api/admin/restriction", headers: { authorization: "Bearer forged" } });
    const log = logLines.join("");
    expect(log).toContain("/api/admin/restriction");
    expect(log).not.toContain(token);
    expect(log).not.toContain(user.token);
    expect(log).not.toContain("correct-horse-battery");
  });

  it("exposes no secret in /openapi.json or /docs", async () => {
    const doc = await t().app.inject({ method: "GET", url: "/openapi.json" });
    const page = await t().app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    for (const body of [doc.body, page.body]) {
      expect(body).not.toContain(vapid.privateKey);
      expect(body).not.toContain("test-secret-that-is-long-enough");
    }
  });
});
