// Sessions follow people (docs/api.md#accounts): the SQL that ends them when who a person is, or what they
// may do, changes. Deleting a session row announces `session_ended` at commit (db/migrations/0018), so every
// instance forgets it from memory and closes its live streams.
import { and, eq, ne, or } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { sessions } from "../../db/schema/index.js";

/**
 * Ends every session of the user, impersonation sessions of them included, and every impersonation session
 * the user opened as an admin; `keep` spares the caller's own session. The ids ended, for the audit event.
 */
export async function endSessionsOf(tx: DbOrTx, userId: string, keep?: string): Promise<string[]> {
  const whose = or(eq(sessions.userId, userId), eq(sessions.impersonatedBy, userId));
  const ended = await tx
    .delete(sessions)
    .where(keep ? and(whose, ne(sessions.id, keep)) : whose)
    .returning({ id: sessions.id });
  return ended.map((s) => s.id);
}

/** Ends the impersonation sessions an admin opened: an admin demoted, banned or removed acts as nobody. */
export async function endImpersonationsBy(tx: DbOrTx, adminId: string): Promise<string[]> {
  const ended = await tx.delete(sessions).where(eq(sessions.impersonatedBy, adminId)).returning({ id: sessions.id });
  return ended.map((s) => s.id);
}
