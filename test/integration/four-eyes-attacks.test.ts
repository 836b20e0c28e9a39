// Four-eyes that one admin cannot defeat (docs/api.md#four-eyes-approval), each test an attack a single
// admin could try with APPROVALS=required: deciding through an impersonation session, switching a pro on
// alone, taking over another admin's account, making an admin of an account they control.
import { describe, expect, it } from "vitest";
import { proRestrictionStatus, pros } from "../../db/schema/index.js";
import { ensureBootstrapAdmin } from "../../server/auth/admin-bootstrap.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { auditMark } from "../helpers/audit.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";
import { accountAct, impersonate, makeAdminInTable, roleOf } from "../helpers/four-eyes.js";

const t = useTestApp({ approvals: "required" });
const R = "/api/admin/restriction";

// biome-ignore lint/suspicious/noExplicitAny: an answer's data, read field by field as the assertions go
type Data = any;

/** A REST call as this caller; the status and the envelope. */
async function rest(as: Pick<TestUser, "headers">, method: "GET" | "POST", url: string, payload?: object) {
  const res = await t().app.inject({ method, url, headers: as.headers, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.json() as { success: boolean; data?: Data; error?: { code: string; message: string } } };
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

/** Signs in with this password; the status. */
async function signIn(email: string, password: string) {
  const res = await t().app.inject({
    method: "POST",
    url: "/api/auth/sign-in/email",
    headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
    payload: { email, password },
  });
  return res.statusCode;
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

describe("one pro is switched on only through a change request", () => {
  async function registeredPro() {
    const [proId] = newProIds(1) as [string];
    await t().db.db.insert(pros).values({ id: proId, name: proId });
    return proId;
  }

  it("direct activation answers 409 on REST and tRPC, and switches nothing on", async () => {
    const a = await t().signUp({ admin: true });
    const proId = await registeredPro();
    const direct = await rest(a, "POST", `${R}/${proId}/activate`);
    expect(direct.status).toBe(409);
    expect(direct.body.error).toMatchObject({ code: "CONFLICT", message: "Approval required: create a change request" });
    expect(await trpcMutation(a, "restriction.activatePro", { proId })).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(await t().caller(a).restriction.getPro({ proId })).toEqual({ proId, restrictionActive: false });
  });

  it("a request by one admin, approved by another, switches it on, audited with both", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const proId = await registeredPro();
    const asked = await rest(a, "POST", `${R}/${proId}/change-requests`, { action: "activate", reason: "opted in" });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const request = asked.body.data.changeRequest;
    expect(request).toMatchObject({ status: "pending", proId, cohortId: null, cohortNumber: null, action: "activate", reason: "opted in" });
    expect(request.preview).toMatchObject({ turnOn: [proId], turnOff: [] });
    expect((await rest(a, "POST", `${R}/${proId}/change-requests`, { action: "activate" })).status).toBe(409);
    expect((await rest(a, "POST", `${R}/change-requests/${request.id}/approve`, {})).status).toBe(403);

    const approved = await rest(b, "POST", `${R}/change-requests/${request.id}/approve`, { comment: "ok" });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data.changeRequest).toMatchObject({ status: "applied", decidedBy: { id: b.id } });
    expect(await t().caller(a).restriction.getPro({ proId })).toMatchObject({ restrictionActive: true, cohortId: null });
    const history = await t().caller(a).restriction.proHistory({ proId });
    expect(history.changes.map((c) => c.actor.id)).toEqual([b.id]);
  });

  it("is stale when the pro was switched on meanwhile; rejected and cancelled like a cohort's", async () => {
    const a = await t().signUp({ admin: true });
    const b = t().caller(await t().signUp({ admin: true })).restriction;
    const proId = await registeredPro();
    const asA = t().caller(a).restriction;
    const first = (await asA.createProChangeRequest({ proId, action: "activate" })).changeRequest;
    expect((await b.rejectChangeRequest({ id: first.id, comment: "not yet" })).changeRequest.status).toBe("rejected");
    const second = (await asA.createProChangeRequest({ proId, action: "activate" })).changeRequest;
    expect((await asA.cancelChangeRequest({ id: second.id })).changeRequest.status).toBe("cancelled");

    const third = (await asA.createProChangeRequest({ proId, action: "activate" })).changeRequest;
    const other = (await asA.createProChangeRequest({ proId: await registeredPro(), action: "activate" })).changeRequest;
    // Switched on another way in between (a cohort's activation would do the same).
    await t().db.db.insert(proRestrictionStatus).values({ proId, restrictionActive: true });
    await expect(b.approveChangeRequest({ id: third.id })).rejects.toMatchObject({ kind: "CONFLICT" });
    expect((await b.getChangeRequest({ id: third.id })).changeRequest.status).toBe("stale");
    expect((await b.approveChangeRequest({ id: other.id })).changeRequest.status).toBe("applied");
  });

  it("an unknown pro cannot be asked for (404)", async () => {
    const a = await t().signUp({ admin: true });
    const res = await rest(a, "POST", `${R}/no-such-pro-${Date.now()}/change-requests`, { action: "activate" });
    expect(res.status).toBe(404);
  });

  it("rollback applies at once, audited as bypassing approval", async () => {
    const a = await t().signUp({ admin: true });
    const proId = await registeredPro();
    await t().db.db.insert(proRestrictionStatus).values({ proId, restrictionActive: true });
    const mark = await auditMark(t().db.db);
    const res = await rest(a, "POST", `${R}/${proId}/rollback`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ proId, restrictionActive: false });
    const [event] = await mark.since();
    expect(event).toMatchObject({ action: "pro.rollback", actor: { id: a.id }, details: { approvalBypassed: true } });
  });
});

describe("one admin cannot take over another admin's account", () => {
  it("setting another admin's password is refused (403) and the old password still signs in", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const res = await accountAct.setPassword(t(), a, b.id, "taken-over-password-1");
    expect(res.statusCode, res.body).toBe(403);
    expect(await signIn(b.email, "taken-over-password-1")).toBe(401);
    expect(await signIn(b.email, TEST_PASSWORD)).toBe(200);
  });

  it("impersonating another admin is refused (403)", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const res = await accountAct.impersonate(t(), a, b.id);
    expect(res.statusCode, res.body).toBe(403);
  });

  it("an ordinary user's password, banning and revoking another admin's sessions go ahead, audited", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const u = await t().signUp();
    const mark = await auditMark(t().db.db);
    expect((await accountAct.setPassword(t(), a, u.id, "a-new-password-123")).statusCode).toBe(200);
    expect((await accountAct.revokeSessions(t(), a, b.id)).statusCode).toBe(200);
    expect((await accountAct.ban(t(), a, b.id)).statusCode).toBe(200);
    expect((await mark.since()).map((e) => e.action)).toEqual(["user.set_password", "user.revoke_sessions", "user.ban"]);
  });
});

describe("one admin cannot make an admin alone", () => {
  it("set-role to admin files a grant-admin request (202): the user is no admin until a second admin approves", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const u = await t().signUp();
    const res = await accountAct.setRole(t(), a, u.id, "admin");
    expect(res.statusCode, res.body).toBe(202);
    const { changeRequest } = (res.json() as { data: { changeRequest: { id: string; action: string; userId: string; status: string } } })
      .data;
    expect(changeRequest).toMatchObject({ action: "grant-admin", userId: u.id, userEmail: u.email, status: "pending", cohortId: null });
    expect(await roleOf(t(), u.id)).toBe("user");
    expect((await rest(u, "GET", `${R}/cohorts`)).status).toBe(403);
    // Neither the requester nor the user themself decides it.
    expect((await rest(a, "POST", `${R}/change-requests/${changeRequest.id}/approve`, {})).status).toBe(403);
    expect((await rest(u, "POST", `${R}/change-requests/${changeRequest.id}/approve`, {})).status).toBe(403);
    // A second set-role while it is pending: 409; a role that is not one string is 400.
    expect((await accountAct.setRole(t(), a, u.id, "admin")).statusCode).toBe(409);
    expect((await accountAct.setRole(t(), a, u.id, ["user", "admin"])).statusCode).toBe(400);

    const mark = await auditMark(t().db.db);
    const approved = await rest(b, "POST", `${R}/change-requests/${changeRequest.id}/approve`, {});
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data.changeRequest).toMatchObject({ status: "applied", decidedBy: { id: b.id } });
    expect(await roleOf(t(), u.id)).toBe("admin");
    // A change of role ends the user's sessions: the new admin signs in again.
    expect((await rest(u, "GET", `${R}/cohorts`)).status).toBe(401);
    expect(await signIn(u.email, TEST_PASSWORD)).toBe(200);
    const events = await mark.since();
    expect(events.map((e) => [e.action, e.actor.id])).toEqual([
      ["user.set_role", b.id],
      ["change_request.approve", b.id],
    ]);
    expect(events[0]).toMatchObject({
      after: { role: "admin" },
      details: { changeRequestId: changeRequest.id, requestedBy: { id: a.id } },
    });
  });

  it("create-user with an admin role makes an ordinary user and files the request (202)", async () => {
    const a = await t().signUp({ admin: true });
    const email = `made-${Date.now()}@test.local`;
    const res = await accountAct.create(t(), a, { email, password: "made-by-a-password", name: "Made", role: "admin" });
    expect(res.statusCode, res.body).toBe(202);
    const body = (res.json() as { data: { user: { id: string; role: string }; changeRequest: { action: string; userId: string } } }).data;
    expect(body.user.role).toBe("user");
    expect(body.changeRequest).toMatchObject({ action: "grant-admin", userId: body.user.id });
    expect(await roleOf(t(), body.user.id)).toBe("user");
    // A chosen id, creation or verification is refused: the account is the service's to make.
    for (const extra of [
      { id: "chosen-id" },
      { createdAt: "2020-01-01T00:00:00Z" },
      { emailVerified: true },
      { data: { role: "admin" } },
    ]) {
      const refused = await accountAct.create(t(), a, { email: `x-${email}`, password: "made-by-a-password", name: "X", ...extra });
      expect(refused.statusCode, refused.body).toBe(400);
    }
  });

  it("revoking the role applies at once, audited", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const mark = await auditMark(t().db.db);
    expect((await accountAct.setRole(t(), a, b.id, "user")).statusCode).toBe(200);
    expect(await roleOf(t(), b.id)).toBe("user");
    expect((await mark.since()).map((e) => e.action)).toEqual(["user.set_role"]);
  });
});

describe("the first admins come from the deployment's configuration", () => {
  it("the start-up admin is made an admin while approvals are required (no session: a separate trust domain)", async () => {
    const email = `ops-${Date.now()}@test.local`;
    const outcome = await ensureBootstrapAdmin(t().db.db, t().auth, { email, password: "a-long-admin-password", name: "Ops" });
    expect(outcome.created).toBe(true);
    expect(await roleOf(t(), outcome.userId)).toBe("admin");
  });

  it("a grant whose user was removed before approval is stale and makes nobody an admin", async () => {
    const a = await t().signUp({ admin: true });
    const b = t().caller(await t().signUp({ admin: true })).restriction;
    const u = await t().signUp();
    const { changeRequest } = ((await accountAct.setRole(t(), a, u.id, "admin")).json() as { data: { changeRequest: { id: string } } })
      .data;
    expect((await accountAct.remove(t(), a, u.id)).statusCode).toBe(200);
    await expect(b.approveChangeRequest({ id: changeRequest.id })).rejects.toMatchObject({ kind: "CONFLICT" });
    expect((await b.getChangeRequest({ id: changeRequest.id })).changeRequest.status).toBe("stale");
  });
});

describe("no other door to the admin role", () => {
  it("a user's own update-user cannot set a role", async () => {
    const u = await t().signUp();
    const res = await t().app.inject({
      method: "POST",
      url: "/api/auth/update-user",
      headers: { ...u.headers, origin: TEST_ORIGIN, "content-type": "application/json" },
      payload: { role: "admin" },
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(await roleOf(t(), u.id)).toBe("user");
  });
});
