// The first platform admin, made at start-up from ADMIN_EMAIL / ADMIN_PASSWORD before the port opens
// (docs/operators.md#who-may-become-an-admin). It runs inside the server process because the embedded database
// admits one process only, so a separate CLI could not run beside it.
import { count, eq } from "drizzle-orm";
import { isPasswordOf } from "../../db/admin-account.js";
import type { Db } from "../../db/client.js";
import { users } from "../../db/schema/index.js";
import { recordAudit } from "../audit/record.js";
import { type BootstrapAdmin, ConfigError } from "../config.js";
import { type Auth, callAuth } from "./better-auth.js";

export type BootstrapOutcome = {
  userId: string;
  email: string;
  created: boolean;
  /**
   * For an ADMIN_EMAIL account that already existed: whether ADMIN_PASSWORD signs in to it (null: not checked,
   * for ADMIN_EMAILS, whose admins are told to change their first password, or no password sign-in at all).
   */
  passwordMatches: boolean | null;
};

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
      const { user } = await callAuth(() =>
        auth.api.createUser({ body: { email: admin.email, password: admin.password, name: admin.name, role: "admin" } }),
      );
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
      return { userId: user.id, email: admin.email, created: true, passwordMatches: true };
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
  // Checked so start-up can say so: a restart keeps the account's password, whatever ADMIN_PASSWORD says.
  const passwordMatches = admin.setting === "ADMIN_EMAILS" ? null : await isPasswordOf(db, existing.id, admin.password);
  return { userId: existing.id, email: admin.email, created: false, passwordMatches };
}

/**
 * Start-up's one line when ADMIN_PASSWORD is not the existing account's password: what happened and the
 * command that sets it. `embedded`: the command needs the server stopped (one process per PGLITE_DIR).
 */
export function passwordMismatchLine(email: string, embedded: boolean): string {
  const run = "ADMIN_EMAIL=… ADMIN_PASSWORD=… npm run admin:reset-password";
  return `ADMIN_EMAIL ${email} already exists and ADMIN_PASSWORD is not its password (start-up never changes a password): to set it, ${embedded ? `stop the server, run ${run}, and start again` : `run ${run}`}`;
}

/** How many admin accounts there are, for start-up to say whether anyone can sign in to the console. */
export async function adminCount(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(users).where(eq(users.role, "admin"));
  return row?.n ?? 0;
}
