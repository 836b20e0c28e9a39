// What an admin who wants to act alone can try on accounts (/api/admin/users…, docs/api.md#accounts), for
// the four-eyes suites (docs/api.md#four-eyes-approval): the owned acts as a browser sends them,
// impersonation sessions, and better-auth's closed admin endpoints as an attacker would still try them.
import { createHmac } from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import { expect } from "vitest";
import { sessions, users } from "../../db/schema/index.js";
import { TEST_AUTH_SECRET, TEST_ORIGIN, type TestApp, type TestUser } from "./app.js";
import { byHand } from "./memory.js";

type Caller = Pick<TestUser, "headers"> | null;

/** A request to the owned account surface under /api/admin, from a trusted origin; the response. */
export const accountsCall = (app: TestApp, caller: Caller, method: "GET" | "POST" | "DELETE", path: string, body?: unknown) =>
  app.app.inject({
    method,
    url: `/api/admin${path}`,
    headers: { origin: TEST_ORIGIN, ...(body === undefined ? {} : { "content-type": "application/json" }), ...caller?.headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

/** The acts of the owned surface by name, each with its REST path and body. */
export const accountAct = {
  create: (app: TestApp, caller: Caller, body: unknown) => accountsCall(app, caller, "POST", "/users", body),
  setRole: (app: TestApp, caller: Caller, id: string, role: unknown) => accountsCall(app, caller, "POST", `/users/${id}/role`, { role }),
  setPassword: (app: TestApp, caller: Caller, id: string, password: string) =>
    accountsCall(app, caller, "POST", `/users/${id}/password`, { password }),
  ban: (app: TestApp, caller: Caller, id: string, body: object = { reason: "Broke the rules" }) =>
    accountsCall(app, caller, "POST", `/users/${id}/ban`, body),
  unban: (app: TestApp, caller: Caller, id: string) => accountsCall(app, caller, "POST", `/users/${id}/unban`),
  revokeSessions: (app: TestApp, caller: Caller, id: string) => accountsCall(app, caller, "POST", `/users/${id}/revoke-sessions`),
  remove: (app: TestApp, caller: Caller, id: string) => accountsCall(app, caller, "DELETE", `/users/${id}`),
  impersonate: (app: TestApp, caller: Caller, id: string) => accountsCall(app, caller, "POST", `/users/${id}/impersonate`),
  stopImpersonating: (app: TestApp, caller: Caller) => accountsCall(app, caller, "POST", "/impersonation/stop"),
};

/** POST /api/auth/admin/<act>: better-auth's admin endpoint, which must answer 404 whatever the body. */
export const betterAuthAdminAct = (app: TestApp, caller: Caller, act: string, body: object) =>
  app.app.inject({
    method: "POST",
    url: `/api/auth/admin/${act}`,
    headers: { origin: TEST_ORIGIN, "content-type": "application/json", ...caller?.headers },
    payload: body,
  });

/** `admin` impersonates `user`: `user` as the impersonation session's bearer token, and that session's id. */
export async function impersonate(app: TestApp, admin: TestUser, user: TestUser): Promise<TestUser & { sessionId: string }> {
  const res = await accountAct.impersonate(app, admin, user.id);
  expect(res.statusCode, res.body).toBe(200);
  const { token } = (res.json() as { data: { token: string } }).data;
  const [session] = await app.db.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, user.id), eq(sessions.impersonatedBy, admin.id)))
    .orderBy(desc(sessions.createdAt))
    .limit(1);
  return { ...user, token, headers: { authorization: `Bearer ${token}` }, sessionId: session!.id };
}

/** The session cookie a browser would hold for this token, signed as better-auth signs it. */
export function sessionCookie(token: string): { cookie: string; origin: string } {
  const signature = createHmac("sha256", TEST_AUTH_SECRET).update(token).digest("base64");
  return { cookie: `better-auth.session_token=${encodeURIComponent(`${token}.${signature}`)}`, origin: TEST_ORIGIN };
}

/** The user's role as stored. */
export async function roleOf(app: TestApp, userId: string): Promise<string | null> {
  const [row] = await app.db.db.select({ role: users.role }).from(users).where(eq(users.id, userId));
  return row?.role ?? null;
}

/** Gives the role straight in the table: the outcome of whatever path an attacker used to get it. */
export const makeAdminInTable = (app: TestApp, userId: string) =>
  byHand(app.db.db.update(users).set({ role: "admin" }).where(eq(users.id, userId)));
