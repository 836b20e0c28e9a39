// The HTTP shell around the procedures: health, auth, sessions, tRPC over HTTP, envelope of Fastify errors.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessions } from "../../db/schema/index.js";
import { BOOTSTRAP_ADMIN_EMAIL, TEST_ORIGIN, useTestApp } from "../helpers/app.js";
import { byHand } from "../helpers/memory.js";

describe("service shell", () => {
  const t = useTestApp();
  const json = { "content-type": "application/json" };

  describe("health", () => {
    it("is live and ready while the database answers", async () => {
      const live = await t().app.inject({ method: "GET", url: "/health/live" });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ success: true, data: { status: "live" } });
      const ready = await t().app.inject({ method: "GET", url: "/health/ready" });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ success: true, data: { status: "ready" } });
    });
  });

  describe("envelope of errors outside the procedures", () => {
    it("answers an unknown route with 404 NOT_FOUND", async () => {
      const res = await t().app.inject({ method: "GET", url: "/api/nothing-here?x=1" });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: "NOT_FOUND", message: "Route GET /api/nothing-here not found" },
      });
    });

    it("answers a body over the limit with 413 PAYLOAD_TOO_LARGE", async () => {
      const admin = await t().signUp({ admin: true });
      const res = await t().app.inject({
        method: "POST",
        url: "/api/admin/restriction/cohorts",
        headers: { ...admin.headers, ...json },
        payload: JSON.stringify({ cohortNumber: 1, proIds: ["x".repeat(2 * 1024 * 1024)] }),
      });
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({
        success: false,
        error: { code: "PAYLOAD_TOO_LARGE", message: "Request body is too large" },
      });
    });

    it("answers a non-JSON content type with 415 VALIDATION_ERROR", async () => {
      const admin = await t().signUp({ admin: true });
      const res = await t().app.inject({
        method: "POST",
        url: "/api/admin/restriction/cohorts",
        headers: { ...admin.headers, "content-type": "text/plain" },
        payload: "cohortNumber=1",
      });
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe("VALIDATION_ERROR");
    });
  });

  describe("request ids", () => {
    it("echoes a given x-request-id and makes one otherwise", async () => {
      const given = await t().app.inject({ method: "GET", url: "/health/live", headers: { "x-request-id": "abc-123" } });
      expect(given.headers["x-request-id"]).toBe("abc-123");
      const made = await t().app.inject({ method: "GET", url: "/health/live" });
      expect(made.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe("CORS", () => {
    it("allows only the configured origins", async () => {
      const allowed = await t().app.inject({
        method: "OPTIONS",
        url: "/api/admin/restriction/cohorts",
        headers: { origin: "http://allowed.test", "access-control-request-method": "POST" },
      });
      expect(allowed.headers["access-control-allow-origin"]).toBe("http://allowed.test");
      // A page on an allowed origin reads the ETag of an OFREP answer, for its If-None-Match.
      const read = await t().app.inject({ method: "GET", url: "/health/live", headers: { origin: "http://allowed.test" } });
      expect(String(read.headers["access-control-expose-headers"]).split(/,\s*/)).toContain("etag");
      const other = await t().app.inject({
        method: "GET",
        url: "/health/live",
        headers: { origin: "http://evil.test" },
      });
      expect(other.headers["access-control-allow-origin"]).toBeUndefined();
    });
  });

  describe("authentication", () => {
    it("makes PLATFORM_ADMIN_EMAILS addresses admins at sign-up, everyone else a user", async () => {
      const admin = await t().signUp({ email: BOOTSTRAP_ADMIN_EMAIL });
      const user = await t().signUp();
      expect(admin.role).toBe("admin");
      expect(user.role).toBe("user");
      const asAdmin = await t().app.inject({ method: "GET", url: "/api/admin/restriction/cohorts", headers: admin.headers });
      expect(asAdmin.statusCode).toBe(200);
      const asUser = await t().app.inject({ method: "GET", url: "/api/admin/restriction/cohorts", headers: user.headers });
      expect(asUser.statusCode).toBe(403);
      expect(asUser.json()).toEqual({
        success: false,
        error: { code: "FORBIDDEN", message: "Platform admin role required" },
      });
    });

    it("signs in with a password and accepts the token as bearer and the session cookie", async () => {
      const user = await t().signUp({ admin: true });
      const signIn = await t().app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: { origin: TEST_ORIGIN, ...json },
        payload: { email: user.email, password: "correct-horse-battery" },
      });
      expect(signIn.statusCode).toBe(200);
      const token = signIn.json().token as string;
      expect(signIn.headers["set-auth-token"]).toBeTruthy();

      const bearer = await t().app.inject({
        method: "GET",
        url: "/api/admin/restriction",
        headers: { authorization: `Bearer ${token}` },
      });
      expect(bearer.statusCode).toBe(200);

      const cookie = signIn.cookies.find((c) => c.name.endsWith("session_token"));
      expect(cookie).toBeDefined();
      const withCookie = await t().app.inject({
        method: "GET",
        url: "/api/admin/restriction",
        cookies: { [cookie!.name]: cookie!.value },
      });
      expect(withCookie.statusCode).toBe(200);
    });

    it("rejects a wrong password, and a cookie-carrying request from an untrusted origin (CSRF)", async () => {
      const user = await t().signUp();
      const wrong = await t().app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: { origin: TEST_ORIGIN, ...json },
        payload: { email: user.email, password: "not-the-password" },
      });
      expect(wrong.statusCode).toBe(401);
      const untrusted = await t().app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: { origin: "http://evil.test", cookie: "theme=dark", ...json },
        payload: { email: user.email, password: "correct-horse-battery" },
      });
      expect(untrusted.statusCode).toBe(403);
      // Without cookies there is nothing to forge: API clients such as curl need no Origin.
      const apiClient = await t().app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: json,
        payload: { email: user.email, password: "correct-horse-battery" },
      });
      expect(apiClient.statusCode).toBe(200);
    });

    it("answers no, forged and expired sessions with 401 UNAUTHORIZED", async () => {
      const user = await t().signUp({ admin: true });
      const unauthorized = { success: false, error: { code: "UNAUTHORIZED", message: "Authentication required" } };
      for (const headers of [{}, { authorization: "Bearer forged-token" }, { authorization: `Bearer ${user.token}x` }]) {
        const res = await t().app.inject({ method: "GET", url: "/api/admin/restriction", headers });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual(unauthorized);
      }
      await byHand(
        t()
          .db.db.update(sessions)
          .set({ expiresAt: new Date(Date.now() - 1000) })
          .where(eq(sessions.userId, user.id)),
      );
      const expired = await t().app.inject({ method: "GET", url: "/api/admin/restriction", headers: user.headers });
      expect(expired.statusCode).toBe(401);
      expect(expired.json()).toEqual(unauthorized);
    });
  });

  describe("tRPC over HTTP", () => {
    it("serves single and batched calls with the session, and maps auth errors to HTTP status", async () => {
      const admin = await t().signUp({ admin: true });
      const single = await t().app.inject({ method: "GET", url: "/trpc/restriction.listCohorts", headers: admin.headers });
      expect(single.statusCode).toBe(200);
      expect(single.json().result.data.json).toEqual(expect.any(Array));

      const input = encodeURIComponent(JSON.stringify({ 0: { json: { proId: "p-1" } }, 1: { json: undefined } }));
      const batch = await t().app.inject({
        method: "GET",
        url: `/trpc/restriction.getPro,restriction.listActive?batch=1&input=${input}`,
        headers: admin.headers,
      });
      expect(batch.statusCode).toBe(200);
      expect(batch.json()[0].result.data.json).toMatchObject({ proId: "p-1", restrictionActive: false });

      const anonymous = await t().app.inject({ method: "GET", url: "/trpc/restriction.listCohorts" });
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json().error.json.data).toMatchObject({ code: "UNAUTHORIZED", appCode: "UNAUTHORIZED" });
      expect(JSON.stringify(anonymous.json())).not.toMatch(/stack/);
    });

    it("reports input validation with field details", async () => {
      const admin = await t().signUp({ admin: true });
      const res = await t().app.inject({
        method: "POST",
        url: "/trpc/restriction.createCohort",
        headers: { ...admin.headers, ...json },
        payload: { json: { cohortNumber: -1, proIds: [] } },
      });
      expect(res.statusCode).toBe(400);
      const data = res.json().error.json.data;
      expect(data.appCode).toBe("VALIDATION_ERROR");
      expect(data.details.map((d: { field: string }) => d.field).sort()).toEqual(["cohortNumber", "proIds"]);
    });
  });
});
