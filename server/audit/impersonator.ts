// The admin behind an impersonation session (better-auth's admin plugin stores their id in
// sessions.impersonated_by), as audit events name them.
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { users } from "../../db/schema/index.js";
import type { Actor } from "./record.js";

/**
 * The admin a session's `impersonatedBy` names, with their address; null for a session of the user's own.
 * One lookup, made only for an impersonation session. An admin removed since keeps their id, with an
 * empty address.
 */
export async function impersonatorOf(db: Db, adminId: string | null | undefined): Promise<Actor | null> {
  if (!adminId) return null;
  const [admin] = await db.select({ email: users.email }).from(users).where(eq(users.id, adminId));
  return { id: adminId, email: admin?.email ?? "" };
}
