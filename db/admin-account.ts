// The admin account as the scripts (`npm run db:seed`, `npm run admin:reset-password`) and start-up see it:
// ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_NAME read with start-up's rules (server/config.ts), and whether a
// password is the one an account signs in with, checked by better-auth's own scrypt verify.
import { verifyPassword } from "better-auth/crypto";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "./client.js";
import { describeEnvIssues, withoutEmptyValues } from "./config.js";
import { accounts } from "./schema/index.js";

/** As start-up takes ADMIN_PASSWORD. */
export const adminPassword = z.string().min(12, "must be at least 12 characters").max(128, "must be at most 128 characters");

const adminEnv = z.object({
  ADMIN_EMAIL: z.email("must be an e-mail address").optional(),
  ADMIN_PASSWORD: adminPassword.optional(),
  ADMIN_NAME: z.string().max(200, "must be at most 200 characters").optional(),
});

export type AdminFromEnv = { email: string; password: string; name: string | undefined };

/**
 * The admin ADMIN_EMAIL and ADMIN_PASSWORD name, or null when neither is set. Throws an Error whose message is
 * one line per bad variable (one set without the other is bad, as at start-up).
 */
export function adminFromEnv(env: NodeJS.ProcessEnv = process.env): AdminFromEnv | null {
  const parsed = adminEnv.safeParse(withoutEmptyValues(env));
  if (!parsed.success) throw new Error(describeEnvIssues(parsed.error));
  const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password, ADMIN_NAME: name } = parsed.data;
  if (email && !password) throw new Error("ADMIN_PASSWORD: required when ADMIN_EMAIL is set");
  if (password && !email) throw new Error("ADMIN_EMAIL: required when ADMIN_PASSWORD is set");
  // better-auth keeps addresses in lower case, and looks them up so at sign-in.
  return email && password ? { email: email.toLowerCase(), password, name: name?.trim() || undefined } : null;
}

/** Whether `password` signs in to this user (its credential account); null when it has no password at all. */
export async function isPasswordOf(db: DbOrTx, userId: string, password: string): Promise<boolean | null> {
  const [credential] = await db
    .select({ hash: accounts.password })
    .from(accounts)
    .where(and(eq(accounts.userId, userId), eq(accounts.providerId, "credential")));
  if (!credential?.hash) return null;
  return verifyPassword({ hash: credential.hash, password });
}
