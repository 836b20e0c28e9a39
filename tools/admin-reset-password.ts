// `npm run admin:reset-password`: sets an admin's password, ends the account's sessions and records it in the
// audit trail (server/auth/admin-password-reset.ts), on the configured database (DATABASE_URL or PGLITE_DIR).
//
//   ADMIN_EMAIL=admin@example.com ADMIN_PASSWORD=a-long-password npm run admin:reset-password
//   npm run admin:reset-password -- --email admin@example.com --password a-long-password
//
// An embedded database folder opens in one process at a time: while the server holds PGLITE_DIR this stops
// with one line naming it, and changes nothing (db/folder-lock.ts). On PostgreSQL it runs beside the server.
import { parseArgs } from "node:util";
import { z } from "zod";
import { adminPassword } from "../db/admin-account.js";
import { createDb } from "../db/client.js";
import { databaseSettings, describeDatabase } from "../db/config.js";
import { exitIfFolderInUse } from "../db/folder-lock.js";
import { RESET_VIA, resetAdminPassword } from "../server/auth/admin-password-reset.js";
import { AppError } from "../server/errors/errors.js";

const USAGE = "usage: npm run admin:reset-password [-- --email ADDRESS --password PASSWORD] (or ADMIN_EMAIL and ADMIN_PASSWORD)";

/** Ends the process with one line for the operator. */
function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function readInput() {
  let flags: { email?: string | undefined; password?: string | undefined };
  try {
    flags = parseArgs({ options: { email: { type: "string" }, password: { type: "string" } } }).values;
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`);
  }
  const email = flags.email ?? process.env.ADMIN_EMAIL;
  const password = flags.password ?? process.env.ADMIN_PASSWORD;
  const emailFrom = flags.email === undefined ? "ADMIN_EMAIL" : "--email";
  const passwordFrom = flags.password === undefined ? "ADMIN_PASSWORD" : "--password";
  if (!email) fail(`ADMIN_EMAIL (or --email): required, the admin's address\n${USAGE}`);
  if (!password) fail(`ADMIN_PASSWORD (or --password): required, the new password (12 to 128 characters)\n${USAGE}`);
  if (!z.email().safeParse(email.trim()).success) fail(`${emailFrom}: must be an e-mail address`);
  const checked = adminPassword.safeParse(password);
  if (!checked.success) fail(`${passwordFrom}: ${checked.error.issues[0]?.message}`);
  return { email: email.trim(), password, passwordFrom };
}

const input = readInput();
let settings: ReturnType<typeof databaseSettings>;
try {
  settings = databaseSettings();
} catch (err) {
  fail((err as Error).message);
}
const handle = await createDb(settings).catch(exitIfFolderInUse);
let refusal: string | null = null;
try {
  await handle.migrate();
  const done = await resetAdminPassword(handle.db, input);
  const source = input.passwordFrom === "--password" ? "the password given with --password" : "the password in ADMIN_PASSWORD";
  const sessions = done.sessionsEnded === 1 ? "1 session" : `${done.sessionsEnded} sessions`;
  console.log(`${describeDatabase(settings)}: ${done.email} now signs in with ${source}; ${sessions} ended.`);
  console.log(`Audited: user.set_password and user.revoke_sessions (via "${RESET_VIA}").`);
} catch (err) {
  // A refusal (unknown address, not an admin) changed nothing: its one line, once the database is closed.
  if (!(err instanceof AppError)) throw err;
  refusal = err.message;
} finally {
  await handle.close();
}
if (refusal) fail(refusal);
