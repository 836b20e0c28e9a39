// Every REST route of the restriction area through app.inject: status codes, the envelope, payload
// fields, error codes and exact messages, authentication and authorization. No request may answer 5xx.
import { randomBytes, randomUUID } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { pros } from "../../db/schema/index.js";
import { restrictionRoutes } from "../../server/rest/routes.js";
import { TEST_ORIGIN, useTestApp, uniqueCohortNumber, type TestUser } from "../helpers/app.js";

const BASE = "/api/admin/restriction";
const PASSING = { responseRate: 0.6, comparisonsDone: 50, legalSignoff: true } as const;
const NO_CHECK = "Activation blocked: no gate check has been run for this cohort. Run check-gates first.";

const COHORT_FIELDS = ["activatedAt", "cohortNumber", "createdAt", "id", "proIds", "rollbackAt", "rollbackReason", "status"];
const CHECK_FIELDS = [
  "allGatesMet",
  "blockedBy",
  "checkedAt",
  "cohortId",
  "comparisonsDone",
  "id",
  "legalSignoff",
  "logLive",
  "responseRate",
];
const STATUS_FIELDS = ["cohortId", "proId", "restrictionActive", "updatedAt"];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Json = Record<string, unknown>;
type Cohort = Json & { id: string; cohortNumber: number; proIds: string[]; status: string };
type Request = { method: "GET" | "POST"; url: string; payload?: unknown; headers?: Record<string, string> };

const newProIds = (n: number) => {
  const prefix = `pro-${randomBytes(6).toString("hex")}`;
  return Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
};

function expectIsoOrNull(value: unknown, isNull: boolean) {
  if (isNull) expect(value).toBeNull();
  else expect(value).toMatch(ISO);
}

describe("restriction REST routes", () => {
  const t = useTestApp();

  /** Sends a request as `user` (anonymous when null); never accepts a 5xx. */
  async function send(user: TestUser | null, request: Request): Promise<LightMyRequestResponse> {
    const res = await t().app.inject({
      method: request.method,
      url: request.url,
      headers: { ...(user ? user.headers : {}), ...request.headers },
      ...(request.payload === undefined ? {} : { payload: request.payload as string | object }),
    });
    expect(res.statusCode, `${request.method} ${request.url}: ${res.body}`).toBeLessThan(500);
    return res;
  }

  /** The data of a success envelope, after checking the status. */
  async function ok<T = Json>(user: TestUser, request: Request, status = 200): Promise<T> {
    const res = await send(user, request);
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json() as { success: boolean; data: T };
    expect(Object.keys(body).sort()).toEqual(["data", "success"]);
    expect(body.success).toBe(true);
    return body.data;
  }

  /** The error of an error envelope, after checking the status, code and (when given) message. */
  async function fails(
    user: TestUser | null,
    request: Request,
    status: number,
    code: string,
    message?: string,
  ): Promise<{ code: string; message: string; details?: { field: string; message: string }[] }> {
    const res = await send(user, request);
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json() as { success: boolean; error: { code: string; message: string } };
    expect(Object.keys(body).sort()).toEqual(["error", "success"]);
    expect(body.success).toBe(false);
    expect(body.error.code).toBe(code);
    expect(typeof body.error.message).toBe("string");
    if (message !== undefined) expect(body.error.message).toBe(message);
    return body.error;
  }

  /** A 400 VALIDATION_ERROR whose details name `field`. */
  async function invalid(user: TestUser, request: Request, field: string) {
    const error = await fails(user, request, 400, "VALIDATION_ERROR");
    expect(error.details?.map((d) => d.field)).toContain(field);
    for (const detail of error.details ?? []) expect(typeof detail.message).toBe("string");
  }

  const admin = () => t().signUp({ admin: true });
  const createCohort = (user: TestUser, proIds = newProIds(2)) =>
    ok<Cohort>(user, { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber: uniqueCohortNumber(), proIds } }, 201);
  const checkGates = (user: TestUser, id: string, payload: object = PASSING) =>
    ok(user, { method: "POST", url: `${BASE}/cohorts/${id}/check-gates`, payload }, 201);
  const activate = (id: string): Request => ({ method: "POST", url: `${BASE}/cohorts/${id}/activate` });
  const rollback = (id: string, payload?: object): Request => ({
    method: "POST",
    url: `${BASE}/cohorts/${id}/rollback`,
    ...(payload ? { payload } : {}),
  });
  const getPro = (user: TestUser, proId: string) => ok(user, { method: "GET", url: `${BASE}/${encodeURIComponent(proId)}` });
  const registerPros = (ids: string[]) => t().db.db.insert(pros).values(ids.map((id) => ({ id, name: `Pro ${id}` })));

  function expectCohort(data: Json) {
    expect(Object.keys(data).sort()).toEqual(COHORT_FIELDS);
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(data.createdAt).toMatch(ISO);
    expectIsoOrNull(data.activatedAt, data.status === "pending");
    expectIsoOrNull(data.rollbackAt, data.status !== "rolled_back");
  }

  function expectStatus(data: Json) {
    expect(Object.keys(data).sort()).toEqual(STATUS_FIELDS);
    expect(data.updatedAt).toMatch(ISO);
  }

  describe("a whole rollout, step by step", () => {
    it("create → blocked check → 400 → passing check → activate → read → list → roll back", async () => {
      const user = await admin();
      const proIds = newProIds(3);
      const cohortNumber = uniqueCohortNumber();

      const cohort = await ok<Cohort>(user, { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber, proIds } }, 201);
      expectCohort(cohort);
      expect(cohort).toMatchObject({ cohortNumber, proIds, status: "pending", activatedAt: null, rollbackReason: null });

      const blocked = await checkGates(user, cohort.id, { responseRate: 0.5 });
      expect(Object.keys(blocked).sort()).toEqual(CHECK_FIELDS);
      expect(blocked).toMatchObject({
        cohortId: cohort.id,
        responseRate: 0.5,
        comparisonsDone: null,
        logLive: true,
        legalSignoff: false,
        allGatesMet: false,
        blockedBy: "response_rate 0.5 < 0.6; comparisons_done 0 < 50; legal_signoff missing",
      });
      expect(blocked.checkedAt).toMatch(ISO);

      await fails(
        user,
        activate(cohort.id),
        400,
        "VALIDATION_ERROR",
        "Activation blocked by unmet gates: response_rate 0.5 < 0.6; comparisons_done 0 < 50; legal_signoff missing",
      );

      const passed = await checkGates(user, cohort.id, { responseRate: 0.9, comparisonsDone: 75, legalSignoff: true });
      expect(passed).toMatchObject({ allGatesMet: true, blockedBy: null, responseRate: 0.9, comparisonsDone: 75 });

      const active = await ok(user, activate(cohort.id));
      expectCohort(active);
      expect(active).toMatchObject({ id: cohort.id, status: "active", rollbackAt: null });

      for (const proId of proIds) {
        const status = await getPro(user, proId);
        expectStatus(status);
        expect(status).toMatchObject({ proId, restrictionActive: true, cohortId: cohort.id });
      }
      const listed = await ok<Json[]>(user, { method: "GET", url: BASE });
      expect(listed.filter((s) => proIds.includes(s.proId as string))).toEqual(
        proIds.map((proId) => expect.objectContaining({ proId, restrictionActive: true, cohortId: cohort.id })),
      );
      const cohorts = await ok<Json[]>(user, { method: "GET", url: `${BASE}/cohorts` });
      expect(cohorts.find((c) => c.id === cohort.id)).toEqual(active);

      const rolled = await ok(user, rollback(cohort.id, { reason: "too many complaints" }));
      expectCohort(rolled);
      expect(rolled).toMatchObject({ status: "rolled_back", rollbackReason: "too many complaints", activatedAt: active.activatedAt });
      for (const proId of proIds) {
        expect(await getPro(user, proId)).toMatchObject({ proId, restrictionActive: false, cohortId: cohort.id });
      }
      const after = await ok<Json[]>(user, { method: "GET", url: BASE });
      expect(after.some((s) => proIds.includes(s.proId as string))).toBe(false);
    });
  });

  describe("POST /cohorts", () => {
    it("answers 409 CONFLICT for a duplicate cohort number", async () => {
      const user = await admin();
      const first = await createCohort(user);
      await fails(
        user,
        { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber: first.cohortNumber, proIds: ["x"] } },
        409,
        "CONFLICT",
      );
    });

    it("answers 400 with details naming each wrong field", async () => {
      const user = await admin();
      const create = (payload: object): Request => ({ method: "POST", url: `${BASE}/cohorts`, payload });
      const proIds = ["p"];
      await invalid(user, create({ cohortNumber: "5", proIds }), "cohortNumber");
      await invalid(user, create({ cohortNumber: 0, proIds }), "cohortNumber");
      await invalid(user, create({ cohortNumber: -3, proIds }), "cohortNumber");
      await invalid(user, create({ cohortNumber: 1.5, proIds }), "cohortNumber");
      await invalid(user, create({ proIds }), "cohortNumber");
      await invalid(user, create({ cohortNumber: uniqueCohortNumber(), proIds: "p" }), "proIds");
      await invalid(user, create({ cohortNumber: uniqueCohortNumber() }), "proIds");
      await invalid(user, create({ cohortNumber: uniqueCohortNumber(), proIds: [] }), "proIds");
      await invalid(user, create({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(501) }), "proIds");
      await invalid(user, create({ cohortNumber: uniqueCohortNumber(), proIds: ["a", ""] }), "proIds.1");
      await invalid(user, create({ cohortNumber: uniqueCohortNumber(), proIds: ["a", 7] }), "proIds.1");
      await invalid(user, create({ cohortNumber: uniqueCohortNumber(), proIds: ["a", "a"] }), "proIds");
      const both = await fails(user, create({ cohortNumber: "x", proIds: 1 }), 400, "VALIDATION_ERROR");
      expect(both.details?.map((d) => d.field).sort()).toEqual(["cohortNumber", "proIds"]);
    });

    it("answers 400 for a body that is not a JSON object", async () => {
      const user = await admin();
      const json = { "content-type": "application/json" };
      for (const payload of ["[1,2]", '"cohort"', "42", "true"]) {
        const error = await fails(user, { method: "POST", url: `${BASE}/cohorts`, payload, headers: json }, 400, "VALIDATION_ERROR");
        expect(error.details?.map((d) => d.field)).toEqual(["(body)"]);
      }
    });

    it("answers 400 for malformed JSON and for a body that is not JSON", async () => {
      const user = await admin();
      const post = (payload: string, contentType: string): Request => ({
        method: "POST",
        url: `${BASE}/cohorts`,
        payload,
        headers: { "content-type": contentType },
      });
      await fails(user, post('{"cohortNumber": 5,', "application/json"), 400, "VALIDATION_ERROR", "Malformed JSON body");
      await fails(user, post("{cohortNumber: 5}", "application/json"), 400, "VALIDATION_ERROR", "Malformed JSON body");
      await fails(user, post("cohortNumber=5", "text/plain"), 400, "VALIDATION_ERROR");
    });
  });

  describe("POST /cohorts/:id/check-gates", () => {
    it("answers 400 with details naming each wrong field", async () => {
      const user = await admin();
      const { id } = await createCohort(user);
      const check = (payload: object): Request => ({ method: "POST", url: `${BASE}/cohorts/${id}/check-gates`, payload });
      await invalid(user, check({ responseRate: 1.5 }), "responseRate");
      await invalid(user, check({ responseRate: -0.1 }), "responseRate");
      await invalid(user, check({ responseRate: "x" }), "responseRate");
      await invalid(user, check({ responseRate: "0.7" }), "responseRate");
      await invalid(user, check({ comparisonsDone: -1 }), "comparisonsDone");
      await invalid(user, check({ comparisonsDone: 2.5 }), "comparisonsDone");
      await invalid(user, check({ comparisonsDone: "50" }), "comparisonsDone");
      await invalid(user, check({ legalSignoff: "yes" }), "legalSignoff");
      await invalid(user, check({ legalSignoff: 1 }), "legalSignoff");
      await fails(
        user,
        { method: "POST", url: `${BASE}/cohorts/${id}/check-gates`, payload: "{", headers: { "content-type": "application/json" } },
        400,
        "VALIDATION_ERROR",
        "Malformed JSON body",
      );
    });

    it("accepts an empty body and records every gate but the log as failed", async () => {
      const user = await admin();
      const { id } = await createCohort(user);
      for (const request of [
        { method: "POST" as const, url: `${BASE}/cohorts/${id}/check-gates` },
        { method: "POST" as const, url: `${BASE}/cohorts/${id}/check-gates`, payload: "", headers: { "content-type": "application/json" } },
        { method: "POST" as const, url: `${BASE}/cohorts/${id}/check-gates`, payload: {} },
      ]) {
        expect(await ok(user, request, 201)).toMatchObject({
          cohortId: id,
          responseRate: null,
          comparisonsDone: null,
          legalSignoff: false,
          logLive: true,
          allGatesMet: false,
          blockedBy: "response_rate 0 < 0.6; comparisons_done 0 < 50; legal_signoff missing",
        });
      }
    });

    it("takes the cohort from the path, not from the body", async () => {
      const user = await admin();
      const a = await createCohort(user);
      const b = await createCohort(user);
      const check = await ok(user, { method: "POST", url: `${BASE}/cohorts/${a.id}/check-gates`, payload: { ...PASSING, id: b.id } }, 201);
      expect(check.cohortId).toBe(a.id);
      await fails(user, activate(b.id), 400, "VALIDATION_ERROR", NO_CHECK);
    });
  });

  describe("POST /cohorts/:id/activate", () => {
    it("answers 400 with the exact message when no check was run", async () => {
      const user = await admin();
      const { id } = await createCohort(user);
      const error = await fails(user, activate(id), 400, "VALIDATION_ERROR", NO_CHECK);
      expect(error.details).toBeUndefined();
    });

    it("works with an empty JSON body, with {} and with no body at all", async () => {
      const user = await admin();
      const requests: Request[] = [
        { ...activate(""), payload: "", headers: { "content-type": "application/json" } },
        { ...activate(""), payload: {} },
        activate(""),
      ];
      for (const request of requests) {
        const { id } = await createCohort(user);
        await checkGates(user, id);
        const active = await ok(user, { ...request, url: `${BASE}/cohorts/${id}/activate` });
        expect(active).toMatchObject({ id, status: "active" });
      }
    });
  });

  describe("POST /cohorts/:id/rollback", () => {
    it("stores a null reason when the body is empty", async () => {
      const user = await admin();
      const { id } = await createCohort(user);
      expect(await ok(user, { ...rollback(id), payload: "", headers: { "content-type": "application/json" } })).toMatchObject({
        status: "rolled_back",
        rollbackReason: null,
      });
      expect(await ok(user, rollback(id))).toMatchObject({ status: "rolled_back", rollbackReason: null });
    });

    it("answers 400 for a reason over 500 characters or not a string, and keeps the cohort", async () => {
      const user = await admin();
      const { id } = await createCohort(user);
      await invalid(user, rollback(id, { reason: "r".repeat(501) }), "reason");
      await invalid(user, rollback(id, { reason: 12 }), "reason");
      const cohorts = await ok<Json[]>(user, { method: "GET", url: `${BASE}/cohorts` });
      expect(cohorts.find((c) => c.id === id)?.status).toBe("pending");
      expect(await ok(user, rollback(id, { reason: "r".repeat(500) }))).toMatchObject({ rollbackReason: "r".repeat(500) });
    });
  });

  describe("unknown cohorts", () => {
    const routes = {
      "check-gates": PASSING,
      activate: undefined,
      rollback: { reason: "because" },
    };
    for (const [action, payload] of Object.entries(routes)) {
      it(`POST /cohorts/:id/${action} answers 404 for an unknown or non-UUID id`, async () => {
        const user = await admin();
        for (const id of [randomUUID(), "nope", "12345", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz"]) {
          const request: Request = { method: "POST", url: `${BASE}/cohorts/${id}/${action}`, ...(payload ? { payload } : {}) };
          await fails(user, request, 404, "NOT_FOUND", `Cohort ${id} not found`);
        }
      });
    }
  });

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

  it("answers 400, not 500, to strings PostgreSQL cannot store (NUL characters)", async () => {
    const user = await admin();
    const { id } = await createCohort(user);
    await invalid(user, { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber: uniqueCohortNumber(), proIds: ["a\u0000b"] } }, "proIds.0");
    await invalid(user, rollback(id, { reason: "why\u0000not" }), "reason");
    await invalid(user, { method: "GET", url: `${BASE}/a%00b` }, "proId");
    await invalid(user, { method: "POST", url: `${BASE}/a%00b/activate` }, "proId");
    await invalid(user, { method: "POST", url: `${BASE}/a%00b/rollback` }, "proId");
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
      const [proId] = newProIds(1) as [string];
      await registerPros([proId]);
      const cohort = await createCohort(user, [proId]);
      await checkGates(user, cohort.id);
      const id = cohort.id;
      const requests: Record<string, Request & { status: number }> = {
        [`POST ${BASE}/cohorts`]: { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber: uniqueCohortNumber(), proIds: ["z"] }, status: 201 },
        [`GET ${BASE}/cohorts`]: { method: "GET", url: `${BASE}/cohorts`, status: 200 },
        [`POST ${BASE}/cohorts/:id/check-gates`]: { method: "POST", url: `${BASE}/cohorts/${id}/check-gates`, payload: PASSING, status: 201 },
        [`POST ${BASE}/cohorts/:id/activate`]: { ...activate(id), status: 200 },
        [`POST ${BASE}/cohorts/:id/rollback`]: { ...rollback(id, { reason: "r" }), status: 200 },
        [`GET ${BASE}`]: { method: "GET", url: BASE, status: 200 },
        [`GET ${BASE}/:proId`]: { method: "GET", url: `${BASE}/${proId}`, status: 200 },
        [`POST ${BASE}/:proId/activate`]: { method: "POST", url: `${BASE}/${proId}/activate`, status: 200 },
        [`POST ${BASE}/:proId/rollback`]: { method: "POST", url: `${BASE}/${proId}/rollback`, status: 200 },
      };
      return { requests, cohortId: id, proId };
    }

    it("covers every restriction route of the REST table", async () => {
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
      const badCookie = { cookie: `better-auth.session_token=${randomBytes(16).toString("hex")}` };
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
