// `npm run admin:reset-password`'s work (server/auth/admin-password-reset.ts; the command itself runs as a process
// in admin-account-scripts.test.ts): the admin's password set as better-auth hashes it, every session of the
// account ended, both acts audited; a bad input is refused with its reason and changes nothing.
import { eq, or } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { isPasswordOf } from "../../db/admin-account.js";
import { sessions } from "../../db/schema/index.js";
import { RESET_VIA, resetAdminPassword } from "../../server/auth/admin-password-reset.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestApp, type TestUser, useTestApp } from "../helpers/app.js";
import { auditMark } from "../helpers/audit.js";

const NEW_PASSWORD = "a-brand-new-long-password";

describe("resetting an admin's password from the deployment's side", () => {
  const t = useTestApp();

  const signIn = async (email: string, password: string) =>
    (
      await t().app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
        payload: { email, password },
      })
    ).statusCode;
  const sessionWorks = async (user: TestUser) =>
    (await t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: user.headers })).statusCode === 200;
  const sessionsOf = async (app: TestApp, userId: string) =>
    (
      await app.db.db
        .select({ id: sessions.id })
        .from(sessions)
        .where(or(eq(sessions.userId, userId), eq(sessions.impersonatedBy, userId)))
    )
      .map((s) => s.id)
      .sort();

  it("sets the password (sign-in takes the new one only), ends every session of the account, and records both acts", async () => {
    const admin = await t().signUp({ admin: true });
    expect(await signIn(admin.email, TEST_PASSWORD)).toBe(200); // a second session
    const other = await t().signUp({ admin: true });
    const before = await sessionsOf(t(), admin.id);
    expect(before).toHaveLength(2);
    const mark = await auditMark(t().db.db);

    const done = await resetAdminPassword(t().db.db, { email: admin.email.toUpperCase(), password: NEW_PASSWORD });

    expect(done).toEqual({ userId: admin.id, email: admin.email, sessionsEnded: 2 });
    expect(await signIn(admin.email, TEST_PASSWORD)).toBe(401);
    expect(await signIn(admin.email, NEW_PASSWORD)).toBe(200);
    expect(await sessionWorks(admin)).toBe(false);
    expect(await sessionWorks(other)).toBe(true); // another admin's session is not touched
    const events = await mark.since();
    const actor = { id: admin.id, email: admin.email };
    const target = { type: "user", id: admin.id };
    expect(events).toMatchObject([
      { action: "user.set_password", actor, target, before: null, after: null, details: { via: RESET_VIA } },
      {
        action: "user.revoke_sessions",
        actor,
        target,
        before: { sessionIds: [...before].sort() },
        after: null,
        details: { via: RESET_VIA },
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(NEW_PASSWORD);
  });

  it.each([
    ["a password under 12 characters", () => ({ password: "too-short" }), "VALIDATION_ERROR", "password: must be at least 12 characters"],
    [
      "a password over 128 characters",
      () => ({ password: "x".repeat(129) }),
      "VALIDATION_ERROR",
      "password: must be at most 128 characters",
    ],
    ["an unknown address", () => ({ email: "nobody-here@test.local" }), "NOT_FOUND", "no account has the address nobody-here@test.local"],
  ] as const)("refuses %s and changes nothing", async (_, change, kind, message) => {
    const admin = await t().signUp({ admin: true });
    const mark = await auditMark(t().db.db);
    await expect(resetAdminPassword(t().db.db, { email: admin.email, password: NEW_PASSWORD, ...change() })).rejects.toMatchObject({
      kind,
      message: expect.stringContaining(message),
    });
    expect(await isPasswordOf(t().db.db, admin.id, TEST_PASSWORD)).toBe(true);
    expect(await sessionWorks(admin)).toBe(true);
    expect(await mark.since()).toEqual([]);
  });

  it("refuses an account that is not an admin (its password is the admins' to set, through the API) and changes nothing", async () => {
    const user = await t().signUp();
    const mark = await auditMark(t().db.db);
    await expect(resetAdminPassword(t().db.db, { email: user.email, password: NEW_PASSWORD })).rejects.toMatchObject({
      kind: "FORBIDDEN",
      message: `${user.email} is not an admin: an admin sets other accounts' passwords (POST /api/admin/users/:id/password)`,
    });
    expect(await isPasswordOf(t().db.db, user.id, TEST_PASSWORD)).toBe(true);
    expect(await sessionWorks(user)).toBe(true);
    expect(await mark.since()).toEqual([]);
  });
});
