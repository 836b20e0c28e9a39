// `npm run admin:reset-password` (tools/admin-reset-password.ts): an admin's password set from the deployment's
// side, for the admin who cannot sign in (ADMIN_PASSWORD was changed after the account was made, or the
// password is lost). Like the start-up bootstrap it needs deployment access, not a session.
import { hashPassword } from "better-auth/crypto";
import { and, eq, or } from "drizzle-orm";
import { adminPassword } from "../../db/admin-account.js";
import type { Db } from "../../db/client.js";
import { accounts, passwordChosenBy, sessions, users } from "../../db/schema/index.js";
import { recordAudit } from "../audit/record.js";
import { AppError } from "../errors/errors.js";

/** What the audit events name as the door the reset came through (their `details.via`). */
export const RESET_VIA = "npm run admin:reset-password";

export type PasswordReset = { userId: string; email: string; sessionsEnded: number };

/**
 * Sets the admin's password (hashed as better-auth hashes it, so sign-in reads it), ends every session the
 * account holds, its impersonation sessions included, and records both acts: all in one transaction, so a
 * refusal or a failure changes nothing. Only an admin's password: any other account's is the admins' to set
 * through the API, where it is audited with an admin as the actor.
 */
export async function resetAdminPassword(db: Db, input: { email: string; password: string }): Promise<PasswordReset> {
  const checked = adminPassword.safeParse(input.password);
  if (!checked.success) {
    throw new AppError("VALIDATION_ERROR", `password: ${checked.error.issues[0]?.message ?? "not accepted"}`);
  }
  const email = input.email.trim().toLowerCase();
  const hash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const [user] = await tx.select({ id: users.id, role: users.role }).from(users).where(eq(users.email, email)).for("update");
    if (!user) {
      throw new AppError("NOT_FOUND", `no account has the address ${email} (start-up with ADMIN_EMAIL and ADMIN_PASSWORD makes it)`);
    }
    if (user.role !== "admin") {
      throw new AppError(
        "FORBIDDEN",
        `${email} is not an admin: an admin sets other accounts' passwords (POST /api/admin/users/:id/password)`,
      );
    }
    const changed = await tx
      .update(accounts)
      .set({ password: hash, updatedAt: new Date() })
      .where(and(eq(accounts.userId, user.id), eq(accounts.providerId, "credential")))
      .returning({ id: accounts.id });
    if (!changed.length) throw new AppError("CONFLICT", `${email} has no password sign-in to reset`);
    // The deployment chose this password: no admin who chose an earlier one counts as this admin any more.
    await tx.delete(passwordChosenBy).where(eq(passwordChosenBy.userId, user.id));
    const ended = await tx
      .delete(sessions)
      .where(or(eq(sessions.userId, user.id), eq(sessions.impersonatedBy, user.id)))
      .returning({ id: sessions.id });

    // No session made this change: the account is its own actor, as with admin.bootstrap.
    const source = { actor: { id: user.id, email }, requestId: null };
    const target = { type: "user", id: user.id } as const;
    const details = { via: RESET_VIA };
    await recordAudit(tx, source, { action: "user.set_password", target, before: null, after: null, details });
    await recordAudit(tx, source, {
      action: "user.revoke_sessions",
      target,
      // Sorted: DELETE … RETURNING gives no order, and the record should not depend on it.
      before: { sessionIds: ended.map((s) => s.id).sort() },
      after: null,
      details,
    });
    return { userId: user.id, email, sessionsEnded: ended.length };
  });
}
