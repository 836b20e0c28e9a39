// The per-pro routes of the restriction area over REST (app.inject), how the router tells cohort paths
// from pro ids, and who may call every restriction route: admins only, by bearer token or session cookie.
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { restrictionRoutes } from "../../server/rest/routes.js";
import { TEST_ORIGIN, type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { insertChangeRequest, OTHER_ADMIN } from "../helpers/change-requests.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";
import type { Json, RestRequest as Request } from "../helpers/rest.js";
import { RESTRICTION as BASE, expectCohort, expectStatus, restrictionRest } from "../helpers/restriction-rest.js";

const BY_QUERY = "/api/admin/pro-restriction";

describe("restriction per-pro routes, routing and who may call, over REST", () => {
  const t = useTestApp();
  const { send, ok, fails, admin, createCohort, checkGates, activate, rollback, getPro, registerPros } = restrictionRest(t);

  describe("per-pro routes", () => {
    it("GET /:proId answers an unknown pro as inactive with null cohort and time", async () => {
      const user = await admin();
      const [proId] = newProIds(1) as [string];
      expect(await getPro(user, proId)).toStrictEqual({ proId, restrictionActive: false });
    });

    it("POST /:proId/activate and /rollback switch a registered pro, with a null cohort", async () => {
      const user = await admin();
      const [proId] = newProIds(1) as [string];
      await registerPros([proId]);
      const on = await ok(user, { method: "POST", url: `${BASE}/${proId}/activate` });
      expectStatus(on);
      expect(on).toMatchObject({ proId, restrictionActive: true, cohortId: null });
      expect(await getPro(user, proId)).toEqual(on);
      expect((await ok<Json[]>(user, { method: "GET", url: BASE })).find((s) => s.proId === proId)).toEqual(on);
      const off = await ok(user, { method: "POST", url: `${BASE}/${proId}/rollback`, payload: {} });
      expectStatus(off);
      expect(off).toMatchObject({ proId, restrictionActive: false, cohortId: null });
      expect((await ok<Json[]>(user, { method: "GET", url: BASE })).some((s) => s.proId === proId)).toBe(false);
    });

    it("answers 404 naming the pro when it is not registered", async () => {
      const user = await admin();
      const [proId] = newProIds(1) as [string];
      for (const action of ["activate", "rollback"]) {
        await fails(user, { method: "POST", url: `${BASE}/${proId}/${action}` }, 404, "NOT_FOUND", `Pro ${proId} not found`);
      }
    });

    it("GET / lists only active statuses, ordered by pro id", async () => {
      const user = await admin();
      const list = await ok<Json[]>(user, { method: "GET", url: BASE });
      for (const status of list) {
        expectStatus(status);
        expect(status.restrictionActive).toBe(true);
      }
      const ids = list.map((s) => s.proId as string);
      expect(ids).toEqual([...ids].sort());
    });
  });

  describe("routing", () => {
    it("gives cohort paths precedence over /:proId", async () => {
      const user = await admin();
      const cohort = await createCohort(user);
      const list = await ok<Json[]>(user, { method: "GET", url: `${BASE}/cohorts` });
      expect(Array.isArray(list)).toBe(true);
      const listed = list.find((c) => c.id === cohort.id);
      expect(listed).toBeDefined();
      expectCohort(listed!);
      const numbers = list.map((c) => c.cohortNumber as number);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    });

    it("answers an unknown route with a 404 NOT_FOUND envelope", async () => {
      const user = await admin();
      await fails(user, { method: "GET", url: `${BASE}/cohorts/${randomUUID()}/nothing` }, 404, "NOT_FOUND");
      await fails(user, { method: "GET", url: `${BASE}/cohorts/${randomUUID()}` }, 404, "NOT_FOUND");
      await fails(user, { method: "GET", url: "/api/admin/nothing-here" }, 404, "NOT_FOUND");
      await fails(null, { method: "POST", url: `${BASE}/a/b/c` }, 404, "NOT_FOUND");
    });

    it("answers a malformed or over-long id with an error envelope, not Fastify's own body", async () => {
      const user = await admin();
      const tooLong = "a".repeat(6000); // over the router's maxParamLength
      for (const url of [`${BASE}/cohorts/%ZZ/activate`, `${BASE}/%E0%A4%A`, `${BASE}/cohorts/${tooLong}/activate`, `${BASE}/${tooLong}`]) {
        const res = await send(user, { method: url.endsWith("activate") ? "POST" : "GET", url });
        expect([400, 404]).toContain(res.statusCode);
        expect(res.json()).toEqual({
          success: false,
          error: expect.objectContaining({ code: res.statusCode === 404 ? "NOT_FOUND" : "VALIDATION_ERROR" }),
        });
      }
    });
  });

  describe("authentication and authorization on every route", () => {
    /** One request per route of the table, with inputs that succeed for an admin; in an order that works. */
    async function everyRoute(user: TestUser) {
      const [proId, byQuery] = newProIds(2) as [string, string];
      await registerPros([proId, byQuery]);
      const cohort = await createCohort(user, [proId]);
      await checkGates(user, cohort.id);
      const id = cohort.id;
      // Change requests of other cohorts, asked by another admin (approve, reject, read) and by this one (cancel).
      const requestOf = async (requestedBy: { id: string; email: string }) => {
        const [pro] = newProIds(1) as [string];
        const other = await createCohort(user, [pro]);
        await checkGates(user, other.id);
        return insertChangeRequest(t().db.db, { cohortId: other.id, action: "activate", requestedBy });
      };
      const [toApprove, toReject, toCancel] = [await requestOf(OTHER_ADMIN), await requestOf(OTHER_ADMIN), await requestOf(user)];
      const requests: Record<string, Request & { status: number }> = {
        [`POST ${BASE}/cohorts`]: {
          method: "POST",
          url: `${BASE}/cohorts`,
          payload: { cohortNumber: uniqueCohortNumber(), proIds: ["z"] },
          status: 201,
        },
        [`GET ${BASE}/cohorts`]: { method: "GET", url: `${BASE}/cohorts`, status: 200 },
        [`POST ${BASE}/cohorts/:id/check-gates`]: {
          method: "POST",
          url: `${BASE}/cohorts/${id}/check-gates`,
          payload: PASSING_GATES,
          status: 201,
        },
        [`GET ${BASE}/cohorts/:id/checks`]: { method: "GET", url: `${BASE}/cohorts/${id}/checks`, status: 200 },
        [`GET ${BASE}/cohorts/:id/preview`]: { method: "GET", url: `${BASE}/cohorts/${id}/preview?action=rollback`, status: 200 },
        [`POST ${BASE}/cohorts/preview`]: {
          method: "POST",
          url: `${BASE}/cohorts/preview`,
          payload: { cohortNumber: uniqueCohortNumber(), proIds: ["z"] },
          status: 200,
        },
        [`GET ${BASE}/cohorts/:id/coverage`]: { method: "GET", url: `${BASE}/cohorts/${id}/coverage`, status: 200 },
        [`POST ${BASE}/cohorts/:id/activate`]: { ...activate(id), status: 200 },
        [`POST ${BASE}/cohorts/:id/rollback`]: { ...rollback(id, { reason: "r" }), status: 200 },
        [`GET ${BASE}`]: { method: "GET", url: BASE, status: 200 },
        [`GET ${BASE}/:proId`]: { method: "GET", url: `${BASE}/${proId}`, status: 200 },
        [`GET ${BASE}/:proId/history`]: { method: "GET", url: `${BASE}/${proId}/history`, status: 200 },
        [`POST ${BASE}/:proId/activate`]: { method: "POST", url: `${BASE}/${proId}/activate`, status: 200 },
        [`POST ${BASE}/:proId/rollback`]: { method: "POST", url: `${BASE}/${proId}/rollback`, status: 200 },
        [`POST ${BASE}/:proId/change-requests`]: {
          method: "POST",
          url: `${BASE}/${proId}/change-requests`,
          payload: { action: "activate" },
          status: 201,
        },
        // The query form (issue AD.9), on a pro of its own: one pending change request per pro.
        [`GET ${BY_QUERY}`]: { method: "GET", url: `${BY_QUERY}?proId=${byQuery}`, status: 200 },
        [`GET ${BY_QUERY}/history`]: { method: "GET", url: `${BY_QUERY}/history?proId=${byQuery}`, status: 200 },
        [`POST ${BY_QUERY}/activate`]: { method: "POST", url: `${BY_QUERY}/activate?proId=${byQuery}`, status: 200 },
        [`POST ${BY_QUERY}/rollback`]: { method: "POST", url: `${BY_QUERY}/rollback?proId=${byQuery}`, status: 200 },
        [`POST ${BY_QUERY}/change-requests`]: {
          method: "POST",
          url: `${BY_QUERY}/change-requests`,
          payload: { proId: byQuery, action: "activate" },
          status: 201,
        },
        [`POST ${BASE}/cohorts/:id/change-requests`]: {
          method: "POST",
          url: `${BASE}/cohorts/${id}/change-requests`,
          payload: { action: "rollback" },
          status: 201,
        },
        [`GET ${BASE}/change-requests`]: { method: "GET", url: `${BASE}/change-requests?status=pending`, status: 200 },
        [`GET ${BASE}/change-requests/:id`]: { method: "GET", url: `${BASE}/change-requests/${toApprove}`, status: 200 },
        [`POST ${BASE}/change-requests/:id/approve`]: { method: "POST", url: `${BASE}/change-requests/${toApprove}/approve`, status: 200 },
        [`POST ${BASE}/change-requests/:id/reject`]: {
          method: "POST",
          url: `${BASE}/change-requests/${toReject}/reject`,
          payload: { comment: "no" },
          status: 200,
        },
        [`POST ${BASE}/change-requests/:id/cancel`]: { method: "POST", url: `${BASE}/change-requests/${toCancel}/cancel`, status: 200 },
      };
      return { requests, cohortId: id, proId };
    }

    it("has a request for every restriction route of the REST table", async () => {
      const { requests } = await everyRoute(await admin());
      expect(Object.keys(requests).sort()).toEqual(restrictionRoutes.map((r) => `${r.method} ${r.path}`).sort());
    });

    it("lets a platform admin call every route", async () => {
      const user = await admin();
      const { requests } = await everyRoute(user);
      for (const { status, ...request } of Object.values(requests)) await ok(user, request, status);
    });

    it("answers 401 UNAUTHORIZED to an anonymous caller, a bad token and a bad cookie on every route", async () => {
      const user = await admin();
      const { requests, cohortId, proId } = await everyRoute(user);
      const badToken = { authorization: `Bearer ${randomBytes(16).toString("hex")}` };
      // From the console's own origin, as a browser sends it (a cookie write from any other is 403 first).
      const badCookie = { cookie: `better-auth.session_token=${randomBytes(16).toString("hex")}`, origin: TEST_ORIGIN };
      for (const { status: _, ...request } of Object.values(requests)) {
        await fails(null, request, 401, "UNAUTHORIZED");
        await fails(null, { ...request, headers: badToken }, 401, "UNAUTHORIZED");
        await fails(null, { ...request, headers: badCookie }, 401, "UNAUTHORIZED");
      }
      // Nothing changed, and neither validation nor lookups run before authentication.
      await fails(null, { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber: "x" } }, 401, "UNAUTHORIZED");
      await fails(null, activate("not-a-uuid"), 401, "UNAUTHORIZED");
      expect(await getPro(user, proId)).toStrictEqual({ proId, restrictionActive: false });
      const cohorts = await ok<Json[]>(user, { method: "GET", url: `${BASE}/cohorts` });
      expect(cohorts.find((c) => c.id === cohortId)?.status).toBe("pending");
    });

    it("answers 403 FORBIDDEN to a signed-in user who is not a platform admin on every route", async () => {
      const user = await admin();
      const { requests, cohortId, proId } = await everyRoute(user);
      const normal = await t().signUp();
      expect(normal.role).not.toBe("admin");
      for (const { status: _, ...request } of Object.values(requests)) await fails(normal, request, 403, "FORBIDDEN");
      await fails(normal, activate(randomUUID()), 403, "FORBIDDEN");
      expect(await getPro(user, proId)).toStrictEqual({ proId, restrictionActive: false });
      const cohorts = await ok<Json[]>(user, { method: "GET", url: `${BASE}/cohorts` });
      expect(cohorts.find((c) => c.id === cohortId)?.status).toBe("pending");
    });

    it("accepts the session cookie as well as the bearer token", async () => {
      const user = await admin();
      const signIn = await t().app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
        payload: { email: user.email, password: "correct-horse-battery" },
      });
      expect(signIn.statusCode).toBe(200);
      const cookie = signIn.cookies.find((c) => c.name.endsWith("session_token"));
      expect(cookie).toBeDefined();
      const withCookie = await send(null, {
        method: "GET",
        url: `${BASE}/cohorts`,
        headers: { cookie: `${cookie!.name}=${cookie!.value}` },
      });
      expect(withCookie.statusCode).toBe(200);
    });
  });
});
