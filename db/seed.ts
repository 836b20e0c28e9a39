// `npm run db:seed`: demo data for the configured database. Safe to run twice: what exists is kept.
// The admin is ADMIN_EMAIL / ADMIN_PASSWORD / ADMIN_NAME when set (as `npm start` reads them), else the demo one.
import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { count, eq } from "drizzle-orm";
import { adminFromEnv, isPasswordOf } from "./admin-account.js";
import { categoryOf } from "./categories.js";
import { createDb, type Db } from "./client.js";
import { databaseSettings, describeDatabase } from "./config.js";
import { exitIfFolderInUse } from "./folder-lock.js";
import { accounts, communicationLogs, notifications, pros, users } from "./schema/index.js";

type Who = { name: string; email: string; password: string };
const SEED_ADMIN: Who = { name: "Demo Admin", email: "admin@example.com", password: "admin-password-123" };
const SEED_USER: Who = { name: "Demo User", email: "user@example.com", password: "user-password-123" };
const PRO_COUNT = 300;

/** A refusal the operator can act on: one line, nothing written. */
class SeedRefused extends Error {}

/**
 * A demo account that signs in with e-mail and password: the rows better-auth's sign-up writes (a user and
 * its credential account, the password hashed as better-auth hashes it), made here without the server. An
 * existing account keeps its password; `samePassword` says whether it is the one given.
 */
async function ensureUser(db: Db, who: Who, role: string, { promote }: { promote: boolean }) {
  const [existing] = await db.select().from(users).where(eq(users.email, who.email));
  if (existing) {
    if (existing.role !== role) {
      // As at start-up: an address from ADMIN_EMAIL never makes someone else's account an admin.
      if (!promote) {
        throw new SeedRefused(
          `ADMIN_EMAIL: ${who.email} belongs to an existing account that is not an admin; the seed never promotes it (choose another address)`,
        );
      }
      await db.update(users).set({ role }).where(eq(users.id, existing.id));
    }
    return { user: existing, created: false, samePassword: await isPasswordOf(db, existing.id, who.password) };
  }
  const id = randomUUID();
  const user = await db.transaction(async (tx) => {
    const [made] = await tx.insert(users).values({ id, name: who.name, email: who.email, role }).returning();
    await tx.insert(accounts).values({
      id: randomUUID(),
      accountId: id,
      providerId: "credential",
      userId: id,
      password: await hashPassword(who.password),
    });
    return made!;
  });
  return { user, created: true, samePassword: true };
}

/** How the seed names an account's password: never a password it was given in the environment. */
function accountLine(label: string, account: Awaited<ReturnType<typeof ensureUser>>, email: string, password: string, resetHint: string) {
  const id = `id ${account.user.id}${account.created ? ", made now" : ", already there"}`;
  if (account.samePassword) return `  ${label}  ${email} / ${password}  (${id})`;
  return `  ${label}  ${email}: ${password} is not its password, which the seed keeps (${resetHint})  (${id})`;
}

let envAdmin: ReturnType<typeof adminFromEnv>;
let settings: ReturnType<typeof databaseSettings>;
try {
  envAdmin = adminFromEnv();
  settings = databaseSettings();
  if (envAdmin?.email === SEED_USER.email)
    throw new Error(`ADMIN_EMAIL: ${SEED_USER.email} is the seed's demo user; choose another address`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
const handle = await createDb(settings).catch(exitIfFolderInUse);
try {
  await handle.migrate();
  const { db } = handle;
  const adminWho: Who = envAdmin ? { name: envAdmin.name ?? "Admin", email: envAdmin.email, password: envAdmin.password } : SEED_ADMIN;
  const adminAccount = await ensureUser(db, adminWho, "admin", { promote: !envAdmin });
  const admin = adminAccount.user;
  const userAccount = await ensureUser(db, SEED_USER, "user", { promote: true });
  const user = userAccount.user;

  const proRows = Array.from({ length: PRO_COUNT }, (_, i) => ({
    id: `pro-${String(i + 1).padStart(4, "0")}`,
    name: `Demo Pro ${i + 1}`,
  }));
  await db.insert(pros).values(proRows).onConflictDoNothing();

  const [logs] = await db.select({ n: count() }).from(communicationLogs);
  if (logs!.n === 0) {
    await db
      .insert(communicationLogs)
      .values(proRows.slice(0, 100).map((p, i) => ({ proId: p.id, userId: user.id, channel: i % 2 ? "sms" : "email" })));
  }

  const samples = [
    { eventType: "message.received", title: "New message from Demo Pro 1", body: "Hi, about your request…" },
    { eventType: "lead.created", title: "A new lead is waiting", body: null },
    { eventType: "review.posted", title: "You received a 5-star review", body: "Great work!" },
    { eventType: "invoice.paid", title: "Invoice #1001 paid", body: null, url: "https://example.com/billing" },
    { eventType: "weekly_digest", title: "Your weekly digest", body: "3 new leads this week" },
  ];
  for (const owner of [admin, user]) {
    const [existing] = await db.select({ n: count() }).from(notifications).where(eq(notifications.userId, owner.id));
    if (existing!.n > 0) continue;
    await db.insert(notifications).values(
      samples.map(({ url, ...n }) => ({
        ...n,
        userId: owner.id,
        category: categoryOf(n.eventType),
        data: url ? { url } : null,
      })),
    );
  }

  console.log(`Seeded ${describeDatabase(settings)}:`);
  const adminPassword = envAdmin ? "the password in ADMIN_PASSWORD" : SEED_ADMIN.password;
  const resetAdmin = `${envAdmin ? "" : "ADMIN_EMAIL=… ADMIN_PASSWORD=… "}npm run admin:reset-password sets it`;
  console.log(accountLine("admin", adminAccount, adminWho.email, adminPassword, resetAdmin));
  console.log(accountLine("user ", userAccount, SEED_USER.email, SEED_USER.password, "an admin sets it"));
  console.log(`  ${PRO_COUNT} pros (pro-0001 … pro-${String(PRO_COUNT).padStart(4, "0")}), communication logs, notifications`);
} catch (err) {
  if (!(err instanceof SeedRefused)) throw err;
  console.error(err.message);
  process.exitCode = 1;
} finally {
  await handle.close();
}
