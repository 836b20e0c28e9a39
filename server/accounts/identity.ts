// Who a user is, as four-eyes needs to know it (docs/api.md#four-eyes-approval): an account is bound to a
// person by its e-mail, its creation and its password. A digest of these, taken when a grant-admin request
// is filed, tells at approval whether the account is still the one the approver was asked about.
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { accounts, users } from "../../db/schema/index.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** A digest of a stored password hash: equal while nobody has set the password again. "" for none. */
export const credentialDigest = (passwordHash: string | null | undefined): string => (passwordHash ? sha256(passwordHash) : "");

/** The user's password hash (better-auth's credential account), or null when they have none. */
export async function passwordHashOf(tx: DbOrTx, userId: string): Promise<string | null> {
  const [row] = await tx
    .select({ password: accounts.password })
    .from(accounts)
    .where(and(eq(accounts.userId, userId), eq(accounts.providerId, "credential")));
  return row?.password ?? null;
}

/** The digest of who the user is now: id, e-mail, creation and password. Null when the user is gone. */
export async function identityDigest(tx: DbOrTx, userId: string): Promise<string | null> {
  const [user] = await tx.select({ id: users.id, email: users.email, createdAt: users.createdAt }).from(users).where(eq(users.id, userId));
  if (!user) return null;
  const credential = credentialDigest(await passwordHashOf(tx, userId));
  return sha256(JSON.stringify([user.id, user.email, user.createdAt.toISOString(), credential]));
}
