// The restriction routes over REST: requests for each step of a rollout, and the exact fields of the
// cohort, gate check and pro status payloads.
import { expect } from "vitest";
import { type TestApp, type TestUser, uniqueCohortNumber } from "./app.js";
import { newProIds, PASSING_GATES, registerPros } from "./fixtures.js";
import { ISO, type Json, type RestRequest, restClient } from "./rest.js";

export const RESTRICTION = "/api/admin/restriction";

export const COHORT_FIELDS = ["activatedAt", "cohortNumber", "createdAt", "id", "proIds", "rollbackAt", "rollbackReason", "status"];
export const CHECK_FIELDS = [
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
export const STATUS_FIELDS = ["cohortId", "proId", "restrictionActive", "updatedAt"];

export type Cohort = Json & { id: string; cohortNumber: number; proIds: string[]; status: string };

function expectIsoOrNull(value: unknown, isNull: boolean) {
  if (isNull) expect(value).toBeNull();
  else expect(value).toMatch(ISO);
}

/** A cohort payload: exactly its fields, a UUID, and timestamps set as far as its status has come. */
export function expectCohort(data: Json) {
  expect(Object.keys(data).sort()).toEqual(COHORT_FIELDS);
  expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
  expect(data.createdAt).toMatch(ISO);
  expectIsoOrNull(data.activatedAt, data.status === "pending");
  expectIsoOrNull(data.rollbackAt, data.status !== "rolled_back");
}

/** A stored pro status payload: exactly its fields, with a write time. */
export function expectStatus(data: Json) {
  expect(Object.keys(data).sort()).toEqual(STATUS_FIELDS);
  expect(data.updatedAt).toMatch(ISO);
}

/** The envelope client, plus a request (or a checked call) for each restriction step. */
export function restrictionRest(app: () => TestApp) {
  const client = restClient(app);
  const { ok } = client;
  return {
    ...client,
    /** A new platform admin. */
    admin: () => app().signUp({ admin: true }),
    createCohort: (user: TestUser, proIds = newProIds(2)) =>
      ok<Cohort>(user, { method: "POST", url: `${RESTRICTION}/cohorts`, payload: { cohortNumber: uniqueCohortNumber(), proIds } }, 201),
    checkGates: (user: TestUser, id: string, payload: object = PASSING_GATES) =>
      ok(user, { method: "POST", url: `${RESTRICTION}/cohorts/${id}/check-gates`, payload }, 201),
    activate: (id: string): RestRequest => ({ method: "POST", url: `${RESTRICTION}/cohorts/${id}/activate` }),
    rollback: (id: string, payload?: object): RestRequest => ({
      method: "POST",
      url: `${RESTRICTION}/cohorts/${id}/rollback`,
      ...(payload ? { payload } : {}),
    }),
    getPro: (user: TestUser, proId: string) => ok(user, { method: "GET", url: `${RESTRICTION}/${encodeURIComponent(proId)}` }),
    registerPros: (ids: string[]) => registerPros(app().db.db, ids),
  };
}
