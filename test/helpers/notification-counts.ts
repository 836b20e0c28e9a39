// The notification_counts table (migration 0007) beside what it summarises: its counters read back, and the
// same counters counted from notifications with count(*). Both come as "user/category → {total, unread}"
// with the zeros left out, since a row of zeros and an absent row both mean 0. Also users written straight
// to the database (no sign-up, no session) and the inbox procedures acting as them.
import { randomBytes } from "node:crypto";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { notificationCounts, notifications, users } from "../../db/schema/index.js";
import type { SessionUser } from "../../server/auth/session.js";
import { createContextInner } from "../../server/context.js";
import { createSearchTotals, type KnownTotal, type SearchTotals } from "../../server/memory/search-totals.js";
import { createPushService } from "../../server/push/sender.js";
import { createCaller } from "../../server/routers/index.js";

export type Counter = { total: number; unread: number };
/** Keyed `userId/category`; only counters that are not both zero. */
export type Counters = Record<string, Counter>;

function nonZero(rows: { userId: string; category: string; total: number; unread: number }[]): Counters {
  const counters: Counters = {};
  for (const { userId, category, total, unread } of rows) {
    if (total !== 0 || unread !== 0) counters[`${userId}/${category}`] = { total, unread };
  }
  return counters;
}

/** What notification_counts says. */
export async function storedCounters(db: Db): Promise<Counters> {
  return nonZero(await db.select().from(notificationCounts));
}

/** What count(*) over notifications says: visible rows, and visible unread rows. */
export async function countedCounters(db: Db): Promise<Counters> {
  const visible = sql`${notifications.deletedAt} is null`;
  const rows = await db
    .select({
      userId: notifications.userId,
      category: notifications.category,
      total: sql<number>`count(*) filter (where ${visible})`.mapWith(Number),
      unread: sql<number>`count(*) filter (where ${visible} and ${notifications.readAt} is null)`.mapWith(Number),
    })
    .from(notifications)
    .groupBy(notifications.userId, notifications.category);
  return nonZero(rows);
}

/** One user's counters summed over `categories` (all of them when absent). */
export function sumFor(counters: Counters, userId: string, categories?: readonly string[]): Counter {
  const sum = { total: 0, unread: 0 };
  for (const [key, c] of Object.entries(counters)) {
    const [owner, category] = key.split("/") as [string, string];
    if (owner !== userId || (categories && !categories.includes(category))) continue;
    sum.total += c.total;
    sum.unread += c.unread;
  }
  return sum;
}

/** `n` users with ids no other test uses, made when first needed (and again after a deletion) by ensureUsers. */
export function newUsers(n: number): SessionUser[] {
  const prefix = `counts-${randomBytes(4).toString("hex")}`;
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    name: `User ${i}`,
    email: `${prefix}-${i}@test.local`,
    role: "user",
  }));
}

/** Writes these users unless they exist. */
export async function ensureUsers(db: Db, people: SessionUser[]): Promise<void> {
  await db
    .insert(users)
    .values(people.map(({ id, name, email }) => ({ id, name, email })))
    .onConflictDoNothing();
}

export const deleteUsers = (db: Db, people: SessionUser[]) =>
  db.delete(users).where(
    inArray(
      users.id,
      people.map((p) => p.id),
    ),
  );

const push = createPushService({ vapid: null });

/** The inbox procedures as this user, without an app or a session; `searchTotals`, the instance's remembered ones. */
export const inboxOf = (db: Db, user: SessionUser, searchTotals?: SearchTotals) =>
  createCaller(createContextInner({ db, push, searchTotals }, { user })).notifications;

/** What count(*) says a search of the titles finds among a user's visible notifications (of one category). */
export async function countedTitleMatches(db: Db, userId: string, text: string, category?: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(notifications)
    .where(
      and(
        eq(notifications.userId, userId),
        isNull(notifications.deletedAt),
        sql`strpos(lower(${notifications.title}), lower(${text})) > 0`,
        category ? eq(notifications.category, category) : undefined,
      ),
    );
  return row!.n;
}

/**
 * Search totals as one instance remembers them, counting how often a remembered total was still true: the list
 * answered with the same version it was offered, so the database used it instead of counting.
 */
export function countedSearchTotals(): SearchTotals & { stillTrue: number } {
  const totals = createSearchTotals();
  const offered = new Map<string, string>();
  const counted = {
    stillTrue: 0,
    get(key: string) {
      const known = totals.get(key);
      if (known) offered.set(key, known.version);
      return known;
    },
    remember(key: string, known: KnownTotal) {
      if (offered.get(key) === known.version) counted.stillTrue++;
      offered.delete(key);
      totals.remember(key, known);
    },
    size: () => totals.size(),
  };
  return counted;
}
