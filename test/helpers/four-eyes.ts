// What an admin who wants to act alone can do with better-auth's admin plugin (/api/auth/admin/*), for the
// four-eyes suites (docs/api.md#four-eyes-approval): its acts as a browser sends them, impersonation
// sessions, and the start of a change request.
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { users } from "../../db/schema/index.js";
import { TEST_ORIGIN, type TestApp, type TestUser } from "./app.js";
import { byHand } from "./memory.js";

/** POST /api/auth/admin/<act> as this caller, from a trusted origin as better-auth requires; the response. */
export const adminAct = (app: TestApp, caller: Pick<TestUser, "headers"> | null, act: string, body: object) =>
  app.app.inject({
    method: "POST",
    url: `/api/auth/admin/${act}`,
    headers: { origin: TEST_ORIGIN, "content-type": "application/json", ...caller?.headers },
    payload: body,
  });

/** `admin` impersonates `user`: `user` as the impersonation session's bearer token, and that session's id. */
export async function impersonate(app: TestApp, admin: TestUser, user: TestUser): Promise<TestUser & { sessionId: string }> {
  const res = await adminAct(app, admin, "impersonate-user", { userId: user.id });
  expect(res.statusCode, res.body).toBe(200);
  const token = String(res.headers["set-auth-token"]);
  return {
    ...user,
    token,
    headers: { authorization: `Bearer ${token}` },
    sessionId: (res.json() as { session: { id: string } }).session.id,
  };
}

/** The user's role as stored. */
export async function roleOf(app: TestApp, userId: string): Promise<string | null> {
  const [row] = await app.db.db.select({ role: users.role }).from(users).where(eq(users.id, userId));
  return row?.role ?? null;
}

/** Gives the role straight in the table: the outcome of whatever path an attacker used to get it. */
export const makeAdminInTable = (app: TestApp, userId: string) =>
  byHand(app.db.db.update(users).set({ role: "admin" }).where(eq(users.id, userId)));
