// The first platform admin, made at start-up from ADMIN_EMAIL / ADMIN_PASSWORD before the port opens
// (docs/api.md#who-may-become-an-admin). It runs inside the server process because the embedded database
// admits one process only, so a separate CLI could not run beside it.
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { users } from "../../db/schema/index.js";
import { recordAudit } from "../audit/record.js";
import { type BootstrapAdmin, ConfigError } from "../config.js";
import type { Auth } from "./better-auth.js";

export type BootstrapOutcome = { userId: string; email: string; created: boolean };

async function findAccount(db: Db, email: string) {
  const [user] = await db.select({ id: users.id, role: users.role }).from(users).where(eq(users.email, email));
  return user;
}

/**
 * Makes sure an admin account with this address exists, creating it with the given password when it is
 * missing. An existing admin is left as it is (its password is never reset). An existing account that is
 * not an admin stops start-up: someone else may have made it, and promoting it would hand them the role.
 */
export async function ensureBootstrapAdmin(db: Db, auth: Auth, admin: BootstrapAdmin): Promise<BootstrapOutcome> {
  let existing = await findAccount(db, admin.email);
  if (!existing) {
    try {
      const { user } = await auth.api.createUser({
        body: { email: admin.email, password: admin.password, name: admin.name, role: "admin" },
      });
      // The first event of the trail: the admin made itself. better-auth writes the account in a
      // transaction of its own, so the event follows it.
      const after = { id: user.id, email: admin.email, name: admin.name, role: "admin" };
      await recordAudit(
        db,
        { actor: { id: user.id, email: admin.email }, requestId: null },
        {
          action: "admin.bootstrap",
          target: { type: "user", id: user.id },
          before: null,
          after,
        },
      );
      return { userId: user.id, email: admin.email, created: true };
    } catch (err) {
      // Another instance starting on the same database may have made it a moment ago.
      existing = await findAccount(db, admin.email);
      if (!existing) throw err;
    }
  }
  if (existing.role !== "admin") {
    throw new ConfigError(
      `${admin.setting ?? "ADMIN_EMAIL"}: ${admin.email} belongs to an existing account that is not an admin; it is never promoted at start-up (have an admin grant the role, or choose another address)`,
    );
  }
  return { userId: existing.id, email: admin.email, created: false };
}
