// Who may act as an account, as far as the service can know (docs/api.md#four-eyes-approval): its owner, and
// whoever chose its password (an admin who made it or set it can sign in as it), and so on up that chain.
// Four-eyes needs two people: an approver and a requester who share anyone here are one person.
import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { passwordChosenBy } from "../../db/schema/index.js";

/** A chain longer than this is cut: no deployment has that many admins choosing each other's passwords. */
const MAX_CHAIN = 32;

/** The account and everyone up its chain of password choosers. */
export async function controllersOf(tx: DbOrTx, userId: string): Promise<Set<string>> {
  const found = new Set([userId]);
  let current = userId;
  for (let step = 0; step < MAX_CHAIN; step++) {
    const [row] = await tx.select({ adminId: passwordChosenBy.adminId }).from(passwordChosenBy).where(eq(passwordChosenBy.userId, current));
    if (!row || found.has(row.adminId)) break;
    found.add(row.adminId);
    current = row.adminId;
  }
  return found;
}

/** Records that `adminId` chose the user's password now (an admin choosing their own clears it). */
export async function recordPasswordChoice(tx: DbOrTx, userId: string, adminId: string): Promise<void> {
  if (userId === adminId) {
    await tx.delete(passwordChosenBy).where(eq(passwordChosenBy.userId, userId));
    return;
  }
  await tx
    .insert(passwordChosenBy)
    .values({ userId, adminId })
    .onConflictDoUpdate({ target: passwordChosenBy.userId, set: { adminId, chosenAt: new Date() } });
}

/** True when the two accounts share someone who can act as both. */
export async function samePerson(tx: DbOrTx, a: string, b: string): Promise<boolean> {
  const [left, right] = [await controllersOf(tx, a), await controllersOf(tx, b)];
  return [...left].some((id) => right.has(id));
}
