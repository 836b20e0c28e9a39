// A user as the API shows them, and the one place a role is written: set-role with approvals off, and an
// approved grant (server/restriction/change-requests.ts). A change of role ends the user's sessions.
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { users } from "../../db/schema/index.js";
import { type AuditSource, recordAudit } from "../audit/record.js";
import type { RoleName } from "./rules.js";
import { endSessionsOf } from "./sessions.js";

/** A user as the API and the audit trail show it: never a password or its hash. */
export const userView = {
  id: users.id,
  name: users.name,
  email: users.email,
  role: users.role,
  banned: users.banned,
  banReason: users.banReason,
  banExpires: users.banExpires,
  createdAt: users.createdAt,
};
export type UserView = {
  id: string;
  name: string;
  email: string;
  role: string;
  banned: boolean;
  banReason: string | null;
  banExpires: Date | null;
  createdAt: Date;
};
export const toView = (row: Omit<UserView, "banned"> & { banned: boolean | null }): UserView => ({ ...row, banned: Boolean(row.banned) });

/**
 * Writes the role and ends the user's sessions, audited as `user.set_role`: set-role with approvals off, and
 * an approved grant (server/restriction/change-requests.ts). Null when the user is gone.
 */
export async function changeRole(
  tx: DbOrTx,
  source: AuditSource,
  userId: string,
  role: RoleName,
  details?: Record<string, unknown>,
): Promise<UserView | null> {
  const [before] = await tx.select(userView).from(users).where(eq(users.id, userId)).for("update");
  if (!before) return null;
  const [after] = await tx.update(users).set({ role, updatedAt: new Date() }).where(eq(users.id, userId)).returning(userView);
  const sessionsEnded = await endSessionsOf(tx, userId);
  await recordAudit(tx, source, {
    action: "user.set_role",
    target: { type: "user", id: userId },
    before: toView(before),
    after: toView(after!),
    details: { ...details, sessionsEnded: sessionsEnded.length },
  });
  return toView(after!);
}
