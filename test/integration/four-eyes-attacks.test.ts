// Four-eyes that one admin cannot defeat (docs/api.md#four-eyes-approval), each test an attack a single
// admin could try with APPROVALS=required: deciding through an impersonation session, switching a pro on
// alone, taking over another admin's account, making an admin of an account they control.
import { describe, expect, it } from "vitest";
import { pros } from "../../db/schema/index.js";
import { type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { impersonate, makeAdminInTable } from "../helpers/four-eyes.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";

const t = useTestApp({ approvals: "required" });
const R = "/api/admin/restriction";

/** A REST call as this caller; the status and the envelope. */
async function rest(as: Pick<TestUser, "headers">, method: "GET" | "POST", url: string, payload?: object) {
  const res = await t().app.inject({ method, url, headers: as.headers, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.json() as { success: boolean; data?: any; error?: { code: string; message: string } } };
}

/** A tRPC mutation over HTTP as this caller; the status and the error's app code. */
async function trpcMutation(as: Pick<TestUser, "headers">, path: string, input: object) {
  const res = await t().app.inject({
    method: "POST",
    url: `/trpc/${path}`,
    headers: { ...as.headers, "content-type": "application/json" },
    payload: JSON.stringify({ json: input }),
  });
  const body = res.json() as { error?: { json: { message: string; data: { appCode: string } } } };
  return { status: res.statusCode, code: body.error?.json.data.appCode, message: body.error?.json.message };
}

/** Admin A's pending activation request of a cohort whose gates passed. */
async function pendingActivation(requester: TestUser) {
  const proIds = newProIds(1);
  await t()
    .db.db.insert(pros)
    .values(proIds.map((id) => ({ id, name: id })));
  const a = t().caller(requester).restriction;
  const cohort = await a.createCohort({ cohortNumber: uniqueCohortNumber(), proIds });
  await a.checkGates({ id: cohort.id, ...PASSING_GATES });
  const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate" });
  return { cohort, changeRequest };
}

describe("an impersonation session never decides a change request", () => {
  it("admin A impersonates U, U becomes an admin, and U's impersonation session cannot approve or reject A's request (REST)", async () => {
    const a = await t().signUp({ admin: true });
    const u = await t().signUp();
    const asU = await impersonate(t(), a, u);
    await makeAdminInTable(t(), u.id);
    const { changeRequest } = await pendingActivation(a);

    const approve = await rest(asU, "POST", `${R}/change-requests/${changeRequest.id}/approve`, {});
    expect(approve.status, JSON.stringify(approve.body)).toBe(403);
    expect(approve.body.error?.code).toBe("FORBIDDEN");
    const reject = await rest(asU, "POST", `${R}/change-requests/${changeRequest.id}/reject`, { comment: "as U" });
    expect(reject.status, JSON.stringify(reject.body)).toBe(403);

    const after = await rest(a, "GET", `${R}/change-requests/${changeRequest.id}`);
    expect(after.body.data.changeRequest.status).toBe("pending");
  });

  it("the same over tRPC", async () => {
    const a = await t().signUp({ admin: true });
    const u = await t().signUp();
    const asU = await impersonate(t(), a, u);
    await makeAdminInTable(t(), u.id);
    const { changeRequest } = await pendingActivation(a);

    expect(await trpcMutation(asU, "restriction.approveChangeRequest", { id: changeRequest.id })).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
    });
    expect(await trpcMutation(asU, "restriction.rejectChangeRequest", { id: changeRequest.id, comment: "as U" })).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
    });
    expect((await t().caller(a).restriction.getChangeRequest({ id: changeRequest.id })).changeRequest.status).toBe("pending");
  });

  it("a second admin's own session still approves", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const { changeRequest } = await pendingActivation(a);
    const approve = await rest(b, "POST", `${R}/change-requests/${changeRequest.id}/approve`, {});
    expect(approve.status).toBe(200);
    expect(approve.body.data.changeRequest.status).toBe("applied");
  });
});
