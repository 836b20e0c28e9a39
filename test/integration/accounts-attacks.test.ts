// Issue X's findings, each as the attack that defeated four-eyes before the service owned its account surface
// (docs/api.md#accounts), with APPROVALS=required: an array id better-auth coerced, a leftover impersonation
// session, a grant applied to a swapped account, an impersonation outliving its admin, roles that were any
// string, and an account one admin made approving that admin's own requests.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema/index.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestUser, useTestApp } from "../helpers/app.js";
import { auditMark } from "../helpers/audit.js";
import { insertCohort } from "../helpers/fixtures.js";
import { accountAct, betterAuthAdminAct, impersonate, roleOf } from "../helpers/four-eyes.js";
import { byHand } from "../helpers/memory.js";
import { snapshotTables } from "../helpers/snapshot.js";

const t = useTestApp({ approvals: "required" });
const R = "/api/admin/restriction";

// biome-ignore lint/suspicious/noExplicitAny: an answer's data, read field by field as the assertions go
const dataOf = (res: { json(): unknown }) => (res.json() as { data: any }).data;
const call = (as: Pick<TestUser, "headers">, method: "GET" | "POST", url: string, payload?: object) =>
  t().app.inject({ method, url, headers: { ...as.headers, origin: TEST_ORIGIN }, ...(payload ? { payload } : {}) });
const live = async (as: Pick<TestUser, "headers">) => (await call(as, "GET", "/api/notifications/unread-count")).statusCode === 200;

async function signIn(email: string, password: string): Promise<TestUser & { status: number }> {
  const res = await t().app.inject({
    method: "POST",
    url: "/api/auth/sign-in/email",
    headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
    payload: { email, password },
  });
  const body = res.json() as { token?: string; user?: TestUser };
  return {
    ...(body.user as TestUser),
    token: body.token ?? "",
    headers: { authorization: `Bearer ${body.token}` },
    status: res.statusCode,
  };
}

/** `requester` files a cohort's activation; its id. */
async function fileActivation(requester: Pick<TestUser, "headers">) {
  const cohort = await insertCohort(t().db.db, { passingCheck: true });
  const res = await call(requester, "POST", `${R}/cohorts/${cohort.id}/change-requests`, { action: "activate" });
  expect(res.statusCode, res.body).toBe(201);
  return dataOf(res).changeRequest.id as string;
}

/** `granter` asks for `user` to be an admin and `approver` approves: the new admin signs in again. */
async function grant(granter: TestUser, approver: TestUser, user: TestUser) {
  const { changeRequest } = dataOf(await accountAct.setRole(t(), granter, user.id, "admin"));
  expect((await call(approver, "POST", `${R}/change-requests/${changeRequest.id}/approve`, {})).statusCode).toBe(200);
}

describe("1. a user id sent as an array", () => {
  it("reaches no act: better-auth's admin paths answer 404, the owned ones 400; nothing changes, nothing is audited", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const u = await t().signUp();
    const before = await snapshotTables(t().db.db);
    for (const [act, body] of [
      ["set-role", { userId: [u.id], role: "admin" }],
      ["set-user-password", { userId: [b.id], newPassword: "taken-over-password" }],
      ["ban-user", { userId: [b.id] }],
      ["revoke-user-sessions", { userId: [b.id] }],
      ["update-user", { userId: [u.id], data: { role: "admin" } }],
      ["remove-user", { userId: [b.id] }],
      ["impersonate-user", { userId: [b.id] }],
    ] as const) {
      expect((await betterAuthAdminAct(t(), a, act, body)).statusCode, act).toBe(404);
    }
    for (const procedure of ["setRole", "setPassword", "ban", "revokeSessions", "remove", "impersonate"]) {
      const res = await t().app.inject({
        method: "POST",
        url: `/trpc/users.${procedure}`,
        headers: { ...a.headers, "content-type": "application/json" },
        payload: JSON.stringify({ json: { id: [b.id], role: "admin", password: "taken-over-password", reason: "x" } }),
      });
      expect(res.statusCode, procedure).toBe(400);
    }
    expect((await accountAct.setRole(t(), a, u.id, ["admin"])).statusCode).toBe(400);
    expect(await snapshotTables(t().db.db)).toEqual(before);
    expect(await roleOf(t(), u.id)).toBe("user");
    expect((await signIn(b.email, TEST_PASSWORD)).status).toBe(200);
  });
});

describe("2. a leftover impersonation session", () => {
  it("ends when its user is made an admin, and never files, cancels or decides while it lives", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const u = await t().signUp();
    const asU = await impersonate(t(), a, u);
    const theirRequest = await fileActivation(b);
    expect((await call(asU, "POST", `${R}/change-requests/${theirRequest}/approve`, {})).statusCode).toBe(403);
    await grant(a, b, u);
    expect(await live(asU)).toBe(false);
    expect(await live(u)).toBe(false);
    // Made an admin in the table behind the service's back, the session still files and decides nothing.
    const v = await t().signUp();
    const asV = await impersonate(t(), a, v);
    await byHand(t().db.db.update(users).set({ role: "admin" }).where(eq(users.id, v.id)));
    const cohort = await insertCohort(t().db.db, { passingCheck: true });
    expect((await call(asV, "POST", `${R}/cohorts/${cohort.id}/change-requests`, { action: "activate" })).statusCode).toBe(403);
    expect((await call(asV, "POST", `${R}/change-requests/${theirRequest}/approve`, {})).statusCode).toBe(403);
    expect((await call(asV, "POST", `${R}/change-requests/${theirRequest}/reject`, { comment: "no" })).statusCode).toBe(403);
  });
});

describe("3. a grant-admin request is bound to the person it named", () => {
  for (const [change, swap] of [
    ["the requester set its password", async (a: TestUser, u: TestUser) => accountAct.setPassword(t(), a, u.id, "a-password-a-chose")],
    [
      "its e-mail changed",
      async (_a: TestUser, u: TestUser) =>
        byHand(
          t()
            .db.db.update(users)
            .set({ email: `moved-${u.email}` })
            .where(eq(users.id, u.id)),
        ),
    ],
    [
      "it was removed and another account made with its id",
      async (a: TestUser, u: TestUser) => {
        await accountAct.remove(t(), a, u.id);
        await byHand(
          t()
            .db.db.insert(users)
            .values({ id: u.id, name: "Impostor", email: `impostor-${u.email}` }),
        );
      },
    ],
  ] as const) {
    it(`is stale (409) when ${change} after filing, and makes nobody an admin`, async () => {
      const a = await t().signUp({ admin: true });
      const b = await t().signUp({ admin: true });
      const u = await t().signUp();
      const { changeRequest } = dataOf(await accountAct.setRole(t(), a, u.id, "admin"));
      await swap(a, u);
      const approve = await call(b, "POST", `${R}/change-requests/${changeRequest.id}/approve`, {});
      expect(approve.statusCode, approve.body).toBe(409);
      expect(await roleOf(t(), u.id)).toBe("user");
    });
  }

  it("a chosen id, creation time or verification cannot be given to a new account", async () => {
    const a = await t().signUp({ admin: true });
    const body = { email: "chosen@test.local", password: "a-long-first-password", name: "Chosen" };
    for (const extra of [{ id: "x" }, { createdAt: "2020-01-01T00:00:00Z" }, { emailVerified: true }, { data: { id: "x" } }])
      expect((await accountAct.create(t(), a, { ...body, ...extra })).statusCode).toBe(400);
  });
});

describe("4. an impersonation ends with its admin's standing", () => {
  for (const [what, end] of [
    ["demoted", (b: TestUser, a: TestUser) => accountAct.setRole(t(), b, a.id, "user")],
    ["banned", (b: TestUser, a: TestUser) => accountAct.ban(t(), b, a.id)],
    ["removed", (b: TestUser, a: TestUser) => accountAct.remove(t(), b, a.id)],
  ] as const) {
    it(`an admin ${what} leaves no impersonation session answering`, async () => {
      const a = await t().signUp({ admin: true });
      const b = await t().signUp({ admin: true });
      const asU = await impersonate(t(), a, await t().signUp());
      expect(await live(asU)).toBe(true);
      expect((await end(b, a)).statusCode).toBe(200);
      expect(await live(asU)).toBe(false);
    });
  }

  it("stop-impersonating works with the bearer token, audited, and the session is gone", async () => {
    const a = await t().signUp({ admin: true });
    const asU = await impersonate(t(), a, await t().signUp());
    const mark = await auditMark(t().db.db);
    expect((await accountAct.stopImpersonating(t(), asU)).statusCode).toBe(200);
    expect(await live(asU)).toBe(false);
    expect((await mark.since()).map((e) => [e.action, e.actor.id])).toEqual([["user.stop_impersonating", a.id]]);
  });
});

describe("5. roles are user or admin, and an admin is always left", () => {
  it("refuses any other role (400) and the database holds none", async () => {
    const a = await t().signUp({ admin: true });
    const u = await t().signUp();
    for (const role of ["", "no-such-role", "admin,user", ["admin", "x"], null])
      expect((await accountAct.setRole(t(), a, u.id, role)).statusCode).toBe(400);
    await expect(byHand(t().db.db.update(users).set({ role: "owner" }).where(eq(users.id, u.id)))).rejects.toThrow();
  });

  it("the last acting admin cannot demote, ban or remove itself (409); with another admin it can", async () => {
    // Every other admin of this database steps aside first, so `last` is the only one.
    const last = await t().signUp({ admin: true });
    const others = await t().db.db.select({ id: users.id }).from(users).where(eq(users.role, "admin"));
    for (const other of others)
      if (other.id !== last.id) await byHand(t().db.db.update(users).set({ role: "user" }).where(eq(users.id, other.id)));
    for (const res of [
      await accountAct.setRole(t(), last, last.id, "user"),
      await accountAct.ban(t(), last, last.id),
      await accountAct.remove(t(), last, last.id),
    ]) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ error: { code: "CONFLICT", message: "The last admin cannot be removed" } });
    }
    const second = await t().signUp({ admin: true });
    expect((await accountAct.setRole(t(), last, last.id, "user")).statusCode).toBe(200);
    expect((await accountAct.setRole(t(), second, second.id, "user")).statusCode).toBe(409);
  });
});

describe("one person is one approver, whichever account they use", () => {
  it("an account an admin made (its password theirs) cannot approve that admin's requests, nor the reverse", async () => {
    const a = await t().signUp({ admin: true });
    const b = await t().signUp({ admin: true });
    const email = "sock-puppet@test.local";
    const made = dataOf(await accountAct.create(t(), a, { email, password: "a-password-a-chose", name: "Puppet", role: "admin" }));
    expect((await call(b, "POST", `${R}/change-requests/${made.changeRequest.id}/approve`, {})).statusCode).toBe(200);
    const puppet = await signIn(email, "a-password-a-chose");
    expect(puppet.status).toBe(200);
    const byA = await fileActivation(a);
    const refused = await call(puppet, "POST", `${R}/change-requests/${byA}/approve`, {});
    expect(refused.statusCode, refused.body).toBe(403);
    const byPuppet = await fileActivation(puppet);
    expect((await call(a, "POST", `${R}/change-requests/${byPuppet}/approve`, {})).statusCode).toBe(403);
    // A second person approves either.
    expect((await call(b, "POST", `${R}/change-requests/${byA}/approve`, {})).statusCode).toBe(200);
  });

  it("a user's own new password ends their other sessions: whoever knew the old one is out", async () => {
    const u = await t().signUp();
    const other = await signIn(u.email, TEST_PASSWORD);
    const res = await t().app.inject({
      method: "POST",
      url: "/api/auth/change-password",
      headers: { ...u.headers, origin: TEST_ORIGIN, "content-type": "application/json" },
      payload: { currentPassword: TEST_PASSWORD, newPassword: "a-new-password-of-mine", revokeOtherSessions: false },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await live(other)).toBe(false);
  });
});
