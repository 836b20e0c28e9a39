// `npm run db:seed`: demo data for the configured database. Safe to run twice: what exists is kept.
import { randomUUID } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { count, eq } from "drizzle-orm";
import { categoryOf } from "./categories.js";
import { createDb, type Db } from "./client.js";
import { databaseSettings, describeDatabase } from "./config.js";
import { exitIfFolderInUse } from "./folder-lock.js";
import { accounts, communicationLogs, notifications, pros, users } from "./schema/index.js";

const SEED_ADMIN = { name: "Demo Admin", email: "admin@example.com", password: "admin-password-123" };
const SEED_USER = { name: "Demo User", email: "user@example.com", password: "user-password-123" };
const PRO_COUNT = 300;

/**
 * A demo account that signs in with e-mail and password: the rows better-auth's sign-up writes (a user and
 * its credential account, the password hashed as better-auth hashes it), made here without the server.
 */
async function ensureUser(db: Db, who: typeof SEED_USER, role: string) {
  const [existing] = await db.select().from(users).where(eq(users.email, who.email));
  if (existing) {
    if (existing.role !== role) await db.update(users).set({ role }).where(eq(users.id, existing.id));
    return existing;
  }
  const id = randomUUID();
  return db.transaction(async (tx) => {
    const [user] = await tx.insert(users).values({ id, name: who.name, email: who.email, role }).returning();
    await tx.insert(accounts).values({
      id: randomUUID(),
      accountId: id,
      providerId: "credential",
      userId: id,
      password: await hashPassword(who.password),
    });
    return user!;
  });
}

const settings = databaseSettings();
const handle = await createDb(settings).catch(exitIfFolderInUse);
try {
  await handle.migrate();
  const { db } = handle;
  const admin = await ensureUser(db, SEED_ADMIN, "admin");
  const user = await ensureUser(db, SEED_USER, "user");

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
  console.log(`  admin  ${SEED_ADMIN.email} / ${SEED_ADMIN.password}  (id ${admin.id})`);
  console.log(`  user   ${SEED_USER.email} / ${SEED_USER.password}  (id ${user.id})`);
  console.log(`  ${PRO_COUNT} pros (pro-0001 … pro-${String(PRO_COUNT).padStart(4, "0")}), communication logs, notifications`);
} finally {
  await handle.close();
}
