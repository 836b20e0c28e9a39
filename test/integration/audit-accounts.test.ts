// docs/api.md#audit-trail: every act of account administration (/api/admin/users…, users.*) writes one event
// in its own transaction: target the user it is about, the user before and after (never a password, hash or
// session token), no event for a refused act. Starting and stopping an impersonation are the admin's acts;
// a change made with an impersonation session is the user's and names the admin in `impersonatedBy`.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { accounts, sessions } from "../../db/schema/index.js";
import { createContextInner } from "../../server/context.js";
import { createCaller } from "../../server/routers/index.js";
import { type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { asJson, auditMark } from "../helpers/audit.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";
import { accountAct, type accountsCall, betterAuthAdminAct, impersonate } from "../helpers/four-eyes.js";

const t = useTestApp();

type Json = Record<string, unknown>;

/** Runs `act`, which must answer `status`, and returns its data with the one event it wrote. */
async function oneEvent(act: () => ReturnType<typeof accountsCall>, status = 200) {
  const mark = await auditMark(t().db.db);
  const res = await act();
  expect(res.statusCode, res.body).toBe(status);
  const events = await mark.since();
  expect(events.map((e) => e.action)).toHaveLength(1);
  return { data: (res.json() as { data: Json }).data, event: events[0]! };
}

const actorOf = (user: Pick<TestUser, "id" | "email">) => ({ id: user.id, email: user.email });
const userTarget = (user: Pick<TestUser, "id">) => ({ type: "user", id: user.id });
/** A user as the trail shows it. */
const audited = (user: Pick<TestUser, "id" | "email" | "name">, fields: Json = {}) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: "user",
  banned: false,
  banReason: null,
  banExpires: null,
  ...fields,
});

describe("each act writes one event about the user", () => {
  it("user.set_role: the user before and after, by the admin, with the request id", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const requestId = `req-${randomBytes(4).toString("hex")}`;
    const { event } = await oneEvent(() =>
      t().app.inject({
        method: "POST",
        url: `/api/admin/users/${user.id}/role`,
        headers: { ...admin.headers, "x-request-id": requestId },
        payload: { role: "admin" },
      }),
    );
    expect(event).toMatchObject({
      actor: actorOf(admin),
      action: "user.set_role",
      target: userTarget(user),
      before: audited(user),
      after: audited(user, { role: "admin" }),
      reason: null,
      requestId,
      impersonatedBy: null,
      details: { sessionsEnded: 1 },
    });
  });

  it("user.ban with its reason and end, then user.unban", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { data, event: ban } = await oneEvent(() => accountAct.ban(t(), admin, user.id, { reason: "spam", expiresInDays: 2 }));
    const banExpires = (data.user as Json).banExpires as string;
    expect(new Date(banExpires).getTime()).toBeGreaterThan(Date.now() + 86_400_000);
    expect(ban).toMatchObject({
      actor: actorOf(admin),
      action: "user.ban",
      target: userTarget(user),
      before: audited(user),
      after: audited(user, { banned: true, banReason: "spam", banExpires }),
      reason: "spam",
    });
    const { event: unban } = await oneEvent(() => accountAct.unban(t(), admin, user.id));
    expect(unban).toMatchObject({ action: "user.unban", before: ban.after, after: audited(user), reason: null });
  });

  it("user.create: after is the new user; user.set_password: the fact, never the password or its hash", async () => {
    const admin = await t().signUp({ admin: true });
    const email = `made-${randomBytes(4).toString("hex")}@test.local`;
    const password = "a-first-password-of-theirs";
    const { data, event: created } = await oneEvent(() => accountAct.create(t(), admin, { email, password, name: "Made" }), 201);
    const user = data.user as TestUser;
    expect(created).toMatchObject({ action: "user.create", actor: actorOf(admin), before: null, after: audited(user) });
    const next = "a-second-password-of-theirs";
    const { event: set } = await oneEvent(() => accountAct.setPassword(t(), admin, user.id, next));
    expect(set).toMatchObject({ action: "user.set_password", target: userTarget(user), before: null, after: null });
    const hashes = (await t().db.db.select({ password: accounts.password }).from(accounts)).map((a) => a.password ?? "");
    for (const secret of [password, next, ...hashes.filter(Boolean)]) expect(JSON.stringify([created, set])).not.toContain(secret);
  });

  it("user.revoke_sessions: the sessions' ids, never a token; nothing to end writes nothing", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { event } = await oneEvent(() => accountAct.revokeSessions(t(), admin, user.id));
    expect(event).toMatchObject({ action: "user.revoke_sessions", target: userTarget(user), before: { sessionIds: [expect.any(String)] } });
    expect(JSON.stringify(event)).not.toContain(user.token);
    const mark = await auditMark(t().db.db);
    expect((await accountAct.revokeSessions(t(), admin, user.id)).json()).toEqual({ success: true, data: { sessionsEnded: 0 } });
    expect(await mark.since()).toEqual([]);
  });

  it("user.remove: the user before, after null", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { event } = await oneEvent(() => accountAct.remove(t(), admin, user.id));
    expect(event).toMatchObject({ action: "user.remove", actor: actorOf(admin), before: audited(user), after: null });
  });

  it("user.impersonate and user.stop_impersonating: by the admin, about the user, naming the session", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const mark = await auditMark(t().db.db);
    const session = await impersonate(t(), admin, user);
    const stop = await accountAct.stopImpersonating(t(), session);
    expect(stop.json()).toEqual({ success: true, data: { ended: true } });
    const events = await mark.since();
    expect(events.map((e) => [e.action, e.actor.id, e.target.id, e.impersonatedBy])).toEqual([
      ["user.impersonate", admin.id, user.id, null],
      ["user.stop_impersonating", admin.id, user.id, null],
    ]);
    expect(events[0]!.after).toMatchObject({ sessionId: session.sessionId });
    expect(events[1]!.before).toEqual({ sessionId: session.sessionId });
    expect(JSON.stringify(events)).not.toContain(session.token);
  });
});

describe("a refused act writes nothing", () => {
  it("a non-admin acting, no session, an unknown user, bad input, the last admin, better-auth's closed endpoints", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const mark = await auditMark(t().db.db);
    const refused = [
      [await accountAct.setRole(t(), user, user.id, "admin"), 403],
      [await accountAct.ban(t(), user, admin.id), 403],
      [await accountAct.impersonate(t(), user, admin.id), 403],
      [await accountAct.setRole(t(), null, user.id, "admin"), 401],
      [await accountAct.setRole(t(), admin, "nobody", "admin"), 404],
      [await accountAct.remove(t(), admin, "nobody"), 404],
      [await accountAct.setRole(t(), admin, user.id, "no-such-role"), 400],
      [await accountAct.ban(t(), admin, user.id, { reason: "a\u0000b" }), 400],
      [await accountAct.ban(t(), admin, user.id, { reason: "x", expiresInDays: 1e20 }), 400],
      [await accountAct.stopImpersonating(t(), user), 409],
      [await betterAuthAdminAct(t(), admin, "set-role", { userId: [user.id], role: "admin" }), 404],
      [await betterAuthAdminAct(t(), admin, "remove-user", { userId: user.id }), 404],
    ] as const;
    expect(refused.map(([res]) => res.statusCode)).toEqual(refused.map(([, status]) => status));
    for (const [res] of refused) expect(res.json(), res.body).toMatchObject({ success: false, error: { code: expect.any(String) } });
    expect(await mark.since()).toEqual([]);
  });
});

describe("an impersonation session", () => {
  it("keeps its hour: a bearer caller's requests do not stretch it", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const session = await impersonate(t(), admin, user);
    const expiry = async () =>
      (await t().db.db.select({ id: sessions.id, expiresAt: sessions.expiresAt }).from(sessions)).find((s) => s.id === session.sessionId)!
        .expiresAt;
    const granted = await expiry();
    expect(granted.getTime() - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    const res = await t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: session.headers });
    expect(res.statusCode).toBe(200);
    expect(await expiry()).toEqual(granted);
  });

  it("a change made with it names the admin (REST and tRPC, SQL-written events too)", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp({ admin: true });
    const session = { id: "impersonation", expiresAt: new Date(Date.now() + 60_000), impersonatedBy: actorOf(admin) };
    const api = createCaller(createContextInner({ db: t().db.db, push: t().push }, { user, session })).restriction;
    const mark = await auditMark(t().db.db);
    const cohort = await api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) });
    await api.checkGates({ id: cohort.id, ...PASSING_GATES });
    await api.activateCohort({ id: cohort.id });
    await api.rollbackCohort({ id: cohort.id, reason: "impersonated rollback" });
    const events = await mark.since();
    expect(events.map((e) => [e.action, e.actor, e.impersonatedBy])).toEqual([
      ["cohort.create", actorOf(user), actorOf(admin)],
      ["cohort.check_gates", actorOf(user), actorOf(admin)],
      ["cohort.activate", actorOf(user), actorOf(admin)],
      ["cohort.rollback", actorOf(user), actorOf(admin)],
    ]);
    expect(events[0]).toMatchObject({ after: asJson(cohort) });
  });
});
