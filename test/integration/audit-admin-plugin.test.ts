// docs/api.md#audit-trail: the acts of better-auth's admin plugin (/api/auth/admin/*) are audited like the
// service's own changes: one event per act, target the user it is about, the user before and after (never a
// password, hash or session token), no event for a refused act. An act made with an impersonation session
// is by the impersonated user and names the admin behind it in `impersonatedBy`; starting and stopping the
// impersonation are by the admin.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { accounts, sessions } from "../../db/schema/index.js";
import { createContextInner } from "../../server/context.js";
import { createCaller } from "../../server/routers/index.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { asJson, auditMark } from "../helpers/audit.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";
import type { WireOutput } from "../helpers/rest.js";

const t = useTestApp();

type Caller = Pick<TestUser, "headers">;
type Json = Record<string, unknown>;

/** POST /api/auth/admin/<act> as this caller (a browser's origin, as better-auth requires); the response. */
const adminAct = (caller: Caller | null, act: string, body: object, headers: Record<string, string> = {}) =>
  t().app.inject({
    method: "POST",
    url: `/api/auth/admin/${act}`,
    headers: { origin: TEST_ORIGIN, "content-type": "application/json", ...caller?.headers, ...headers },
    payload: body,
  });

/** The act, which must succeed; its JSON answer. */
async function ok(caller: Caller, act: string, body: object, headers?: Record<string, string>): Promise<Json> {
  const res = await adminAct(caller, act, body, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Json;
}

/** Runs `act` and returns its result with the one event it wrote (failing if it wrote another number). */
async function oneEvent<T>(act: () => Promise<T>) {
  const mark = await auditMark(t().db.db);
  const result = await act();
  const events = await mark.since();
  expect(events.map((e) => e.action)).toHaveLength(1);
  return { result, event: events[0]! };
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

/**
 * The admin starts impersonating `user`: the impersonation session's bearer token, and the signed cookie
 * better-auth keeps the admin's own session in (stop-impersonating needs it back).
 */
async function impersonate(admin: TestUser, user: TestUser) {
  const res = await adminAct(admin, "impersonate-user", { userId: user.id });
  expect(res.statusCode, res.body).toBe(200);
  const adminCookie = res.cookies.find((c) => c.name.endsWith("admin_session"))!;
  const as: TestUser = { ...user, headers: { authorization: `Bearer ${res.headers["set-auth-token"]}` } };
  return {
    as,
    sessionId: (res.json() as { session: { id: string } }).session.id,
    stop: () => ok(as, "stop-impersonating", {}, { cookie: `${adminCookie.name}=${adminCookie.value}` }),
  };
}

describe("each act of the admin plugin writes one event about the user", () => {
  it("user.set_role: the user before and after, by the admin, with the request id", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const requestId = `req-${randomBytes(4).toString("hex")}`;
    const { event } = await oneEvent(() => ok(admin, "set-role", { userId: user.id, role: "admin" }, { "x-request-id": requestId }));
    expect(event).toMatchObject({
      actor: actorOf(admin),
      action: "user.set_role",
      target: userTarget(user),
      before: audited(user),
      after: audited(user, { role: "admin" }),
      reason: null,
      requestId,
      impersonatedBy: null,
    });
  });

  it("user.ban with its reason and expiry, then user.unban", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { result, event: ban } = await oneEvent(() => ok(admin, "ban-user", { userId: user.id, banReason: "spam", banExpiresIn: 3600 }));
    const banExpires = (result.user as Json).banExpires;
    expect(ban).toMatchObject({
      actor: actorOf(admin),
      action: "user.ban",
      target: userTarget(user),
      before: audited(user),
      after: audited(user, { banned: true, banReason: "spam", banExpires }),
      reason: "spam",
    });

    const { event: unban } = await oneEvent(() => ok(admin, "unban-user", { userId: user.id }));
    expect(unban).toMatchObject({ action: "user.unban", before: ban.after, after: audited(user), reason: null });
  });

  it("a ban without a reason: better-auth's default in after, no reason", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { event } = await oneEvent(() => ok(admin, "ban-user", { userId: user.id }));
    expect(event).toMatchObject({ action: "user.ban", after: audited(user, { banned: true, banReason: "No reason" }), reason: null });
  });

  it("user.create: after is the new user; user.set_password: the fact, never the password", async () => {
    const admin = await t().signUp({ admin: true });
    const email = `made-${randomBytes(4).toString("hex")}@test.local`;
    const { result, event: created } = await oneEvent(() => ok(admin, "create-user", { email, name: "Made", password: TEST_PASSWORD }));
    const made = { id: (result.user as Json).id as string, email, name: "Made" };
    expect(created).toMatchObject({
      actor: actorOf(admin),
      action: "user.create",
      target: userTarget(made),
      before: null,
      after: audited(made),
    });

    const newPassword = "another-long-password";
    const { event: password } = await oneEvent(() => ok(admin, "set-user-password", { userId: made.id, newPassword }));
    expect(password).toMatchObject({
      actor: actorOf(admin),
      action: "user.set_password",
      target: userTarget(made),
      before: null,
      after: null,
    });
    const [account] = await t().db.db.select({ hash: accounts.password }).from(accounts).where(eq(accounts.userId, made.id));
    for (const secret of [TEST_PASSWORD, newPassword, account!.hash!]) expect(JSON.stringify([created, password])).not.toContain(secret);
  });

  it("user.update: the user before and after (update-user may set the role too)", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { event } = await oneEvent(() => ok(admin, "update-user", { userId: user.id, data: { name: "Renamed", role: "admin" } }));
    expect(event).toMatchObject({
      action: "user.update",
      target: userTarget(user),
      before: audited(user),
      after: audited(user, { name: "Renamed", role: "admin" }),
    });
  });

  it("user.revoke_sessions, one session by its token or all of a user's: the sessions' ids, never a token", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { sessions } = (await ok(admin, "list-user-sessions", { userId: user.id })) as { sessions: { id: string; token: string }[] };
    expect(sessions).toHaveLength(1);
    // The list shows the stored hash, not the token (docs/guarantees.md): the session is named by the token its holder has.
    expect(sessions[0]!.token).not.toBe(user.token);

    const { event: one } = await oneEvent(() => ok(admin, "revoke-user-session", { sessionToken: user.token }));
    expect(one).toMatchObject({
      action: "user.revoke_sessions",
      target: userTarget(user),
      before: { sessionIds: [sessions[0]!.id] },
      after: null,
    });
    expect(JSON.stringify(one)).not.toContain(user.token);
    expect(JSON.stringify(one)).not.toContain(sessions[0]!.token);

    const signIn = await t().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      payload: { email: user.email, password: TEST_PASSWORD },
    });
    expect(signIn.statusCode).toBe(200);
    const { event: all } = await oneEvent(() => ok(admin, "revoke-user-sessions", { userId: user.id }));
    expect(all).toMatchObject({ action: "user.revoke_sessions", target: userTarget(user), after: null });
    expect((all.before as { sessionIds: string[] }).sessionIds).toHaveLength(1);
  });

  it("user.remove: the user before, after null", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { event } = await oneEvent(() => ok(admin, "remove-user", { userId: user.id }));
    expect(event).toMatchObject({
      actor: actorOf(admin),
      action: "user.remove",
      target: userTarget(user),
      before: audited(user),
      after: null,
    });
  });

  it("user.impersonate and user.stop_impersonating: by the admin, about the user, naming the session", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { result: session, event: start } = await oneEvent(() => impersonate(admin, user));
    expect(start).toMatchObject({
      actor: actorOf(admin),
      action: "user.impersonate",
      target: userTarget(user),
      before: null,
      impersonatedBy: null,
    });
    expect(start.after).toEqual({ sessionId: session.sessionId, expiresAt: expect.any(String) });

    const { event: stop } = await oneEvent(() => session.stop());
    expect(stop).toMatchObject({
      actor: actorOf(admin),
      action: "user.stop_impersonating",
      target: userTarget(user),
      before: { sessionId: session.sessionId },
      after: null,
      impersonatedBy: null,
    });
  });
});

describe("a refused or failed act writes nothing", () => {
  it("a non-admin setting a role, banning or impersonating; no session; an unknown user; banning oneself", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const mark = await auditMark(t().db.db);
    const refused = [
      await adminAct(user, "set-role", { userId: user.id, role: "admin" }),
      await adminAct(user, "ban-user", { userId: admin.id }),
      await adminAct(user, "impersonate-user", { userId: admin.id }),
      await adminAct(null, "set-role", { userId: user.id, role: "admin" }),
      await adminAct(admin, "set-role", { userId: "nobody", role: "admin" }),
      await adminAct(admin, "remove-user", { userId: "nobody" }),
      await adminAct(admin, "ban-user", { userId: admin.id }),
      await adminAct(user, "stop-impersonating", {}),
    ];
    expect(refused.map((r) => r.statusCode)).toEqual([403, 403, 403, 401, 404, 404, 400, 400]);
    expect(await mark.since()).toEqual([]);
  });

  it("revoking a session that does not exist revokes nothing, and records nothing", async () => {
    const admin = await t().signUp({ admin: true });
    const mark = await auditMark(t().db.db);
    await ok(admin, "revoke-user-session", { sessionToken: "no-such-token" });
    await ok(admin, "revoke-user-sessions", { userId: "nobody" });
    expect(await mark.since()).toEqual([]);
  });
});

describe("an impersonation session", () => {
  it("keeps its hour: a bearer caller's requests do not stretch it to an ordinary session's 7 days", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const { as, sessionId } = await impersonate(admin, user);
    const expiry = async () =>
      (await t().db.db.select({ expiresAt: sessions.expiresAt }).from(sessions).where(eq(sessions.id, sessionId)))[0]!.expiresAt;
    const granted = await expiry();
    expect(granted.getTime() - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    const res = await t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: as.headers });
    expect(res.statusCode).toBe(200);
    expect(await expiry()).toEqual(granted);
  });
});

describe("issue K: an admin impersonates a user, makes them an admin, creates a cohort as them, takes the role back", () => {
  it("every step is in the trail, and each act made under impersonation names the admin", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const mark = await auditMark(t().db.db);

    const impersonation = await impersonate(admin, user);
    const as = impersonation.as;
    // The user is no admin yet: the admin grants the role from their own session.
    await ok(admin, "set-role", { userId: user.id, role: "admin" });
    const res = await t().app.inject({
      method: "POST",
      url: "/api/admin/restriction/cohorts",
      headers: as.headers,
      payload: { cohortNumber: uniqueCohortNumber(), proIds: newProIds(2) },
    });
    expect(res.statusCode, res.body).toBe(201);
    const cohort = (res.json() as { data: { id: string } }).data;
    // Now an admin, the impersonated user takes the role back themselves: still the admin's doing.
    await ok(as, "set-role", { userId: user.id, role: "user" });
    await impersonation.stop();

    const steps = (await mark.since()).map((e) => ({
      action: e.action,
      actor: e.actor.id,
      target: e.target.id,
      impersonatedBy: e.impersonatedBy,
      role: (e.after as { role?: string } | null)?.role,
    }));
    const byAdmin = actorOf(admin);
    expect(steps).toEqual([
      { action: "user.impersonate", actor: admin.id, target: user.id, impersonatedBy: null, role: undefined },
      { action: "user.set_role", actor: admin.id, target: user.id, impersonatedBy: null, role: "admin" },
      { action: "cohort.create", actor: user.id, target: cohort.id, impersonatedBy: byAdmin, role: undefined },
      { action: "user.set_role", actor: user.id, target: user.id, impersonatedBy: byAdmin, role: "user" },
      { action: "user.stop_impersonating", actor: admin.id, target: user.id, impersonatedBy: null, role: undefined },
    ]);

    // The log shows the same over REST: the admin is named next to the actor.
    const log = await t().app.inject({ method: "GET", url: `/api/admin/audit?actorId=${user.id}`, headers: admin.headers });
    const { events } = (log.json() as { data: WireOutput<"audit.list"> }).data;
    expect(events.map((e) => [e.action, e.actor, e.impersonatedBy])).toEqual([
      ["user.set_role", actorOf(user), byAdmin],
      ["cohort.create", actorOf(user), byAdmin],
    ]);
  });

  it("through tRPC as well: a change made with an impersonation session names the admin", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp({ admin: true });
    const session = { id: "impersonation", expiresAt: new Date(Date.now() + 60_000), impersonatedBy: actorOf(admin) };
    const api = createCaller(createContextInner({ db: t().db.db, push: t().push }, { user, session })).restriction;
    const { result: cohort, event } = await oneEvent(() => api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) }));
    expect(event).toMatchObject({ actor: actorOf(user), action: "cohort.create", after: asJson(cohort), impersonatedBy: actorOf(admin) });

    // Activation and rollback write their event in SQL (server/routers/restriction/cohorts.ts): the same.
    await api.checkGates({ id: cohort.id, ...PASSING_GATES });
    const activated = await oneEvent(() => api.activateCohort({ id: cohort.id }));
    expect(activated.event).toMatchObject({ actor: actorOf(user), action: "cohort.activate", impersonatedBy: actorOf(admin) });
    const rolledBack = await oneEvent(() => api.rollbackCohort({ id: cohort.id, reason: "impersonated rollback" }));
    expect(rolledBack.event).toMatchObject({ actor: actorOf(user), action: "cohort.rollback", impersonatedBy: actorOf(admin) });
  });
});
