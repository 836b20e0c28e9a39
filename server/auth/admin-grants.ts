// The admin role granted by an approved change request (docs/api.md#four-eyes-approval): while approvals are
// required, set-role and create-user never make an admin on one admin's word (server/auth/four-eyes.ts); the
// second admin's approval does it here, in the approval's transaction.
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { users } from "../../db/schema/index.js";
import { userColumns } from "../audit/admin-plugin.js";
import { type AuditSource, recordAudit } from "../audit/record.js";

/**
 * Makes the user an admin, audited as `user.set_role` by the approver with the request's details. False,
 * changing nothing, when there is nothing left to grant: the user was removed, or is an admin already.
 */
export async function grantAdmin(tx: DbOrTx, source: AuditSource, grant: { userId: string; details: Record<string, unknown> }) {
  const [before] = await tx.select(userColumns).from(users).where(eq(users.id, grant.userId)).for("update");
  if (!before || before.role === "admin") return false;
  const [after] = await tx
    .update(users)
    .set({ role: "admin", updatedAt: new Date() })
    .where(eq(users.id, grant.userId))
    .returning(userColumns);
  await recordAudit(tx, source, {
    action: "user.set_role",
    target: { type: "user", id: grant.userId },
    before,
    after,
    details: grant.details,
  });
  return true;
}
