// The cohort routes of the restriction area over REST (app.inject): a whole rollout step by step, then each
// route's status codes, envelope, payload fields, error codes and exact messages. No request may answer 5xx.
// Per-pro routes, routing and who may call are in restriction-pros.rest.test.ts.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { EMPTY_CHECK_RECORD, FAILING_GATES, FAILING_GATES_BLOCKED_BY, NO_CHECK, newProIds, PASSING_GATES } from "../helpers/fixtures.js";
import { ISO, type Json, type RestRequest as Request } from "../helpers/rest.js";
import {
  RESTRICTION as BASE,
  CHECK_FIELDS,
  type Cohort,
  expectCohort,
  expectStatus,
  restrictionRest,
} from "../helpers/restriction-rest.js";

describe("restriction cohort routes over REST", () => {
  const t = useTestApp();
  const { ok, fails, invalid, admin, createCohort, checkGates, activate, rollback, getPro } = restrictionRest(t);

  describe("a whole rollout, step by step", () => {
    it("create → blocked check → 400 → passing check → activate → read → list → roll back", async () => {
      const user = await admin();
      const proIds = newProIds(3);
      const cohortNumber = uniqueCohortNumber();

      const cohort = await ok<Cohort>(user, { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber, proIds } }, 201);
      expectCohort(cohort);
      expect(cohort).toMatchObject({ cohortNumber, proIds, status: "pending", activatedAt: null, rollbackReason: null });

      const blocked = await checkGates(user, cohort.id, FAILING_GATES);
      expect(Object.keys(blocked).sort()).toEqual(CHECK_FIELDS);
      expect(blocked).toMatchObject({
        cohortId: cohort.id,
        responseRate: 0.5,
        comparisonsDone: null,
        logLive: true,
        legalSignoff: false,
        allGatesMet: false,
        blockedBy: FAILING_GATES_BLOCKED_BY,
      });
      expect(blocked.checkedAt).toMatch(ISO);

      await fails(user, activate(cohort.id), 400, "VALIDATION_ERROR", `Activation blocked by unmet gates: ${FAILING_GATES_BLOCKED_BY}`);

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

    it("answers 400 for malformed JSON and 415 for a body that is not JSON", async () => {
      const user = await admin();
      const post = (payload: string, contentType: string): Request => ({
        method: "POST",
        url: `${BASE}/cohorts`,
        payload,
        headers: { "content-type": contentType },
      });
      await fails(user, post('{"cohortNumber": 5,', "application/json"), 400, "VALIDATION_ERROR", "Malformed JSON body");
      await fails(user, post("{cohortNumber: 5}", "application/json"), 400, "VALIDATION_ERROR", "Malformed JSON body");
      await fails(user, post("cohortNumber=5", "text/plain"), 415, "VALIDATION_ERROR");
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
        expect(await ok(user, request, 201)).toMatchObject({ cohortId: id, ...EMPTY_CHECK_RECORD });
      }
    });

    it("takes the cohort from the path, not from the body", async () => {
      const user = await admin();
      const a = await createCohort(user);
      const b = await createCohort(user);
      const check = await ok(
        user,
        { method: "POST", url: `${BASE}/cohorts/${a.id}/check-gates`, payload: { ...PASSING_GATES, id: b.id } },
        201,
      );
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

    it("activates with an empty JSON body, with {} and with no body at all", async () => {
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
      "check-gates": PASSING_GATES,
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

  it("answers 400, not 500, to strings PostgreSQL cannot store (NUL characters)", async () => {
    const user = await admin();
    const { id } = await createCohort(user);
    await invalid(
      user,
      { method: "POST", url: `${BASE}/cohorts`, payload: { cohortNumber: uniqueCohortNumber(), proIds: ["a\u0000b"] } },
      "proIds.0",
    );
    await invalid(user, rollback(id, { reason: "why\u0000not" }), "reason");
    await invalid(user, { method: "GET", url: `${BASE}/a%00b` }, "proId");
    await invalid(user, { method: "POST", url: `${BASE}/a%00b/activate` }, "proId");
    await invalid(user, { method: "POST", url: `${BASE}/a%00b/rollback` }, "proId");
  });
});
