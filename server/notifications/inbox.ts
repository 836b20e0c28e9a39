// The caller's inbox: list, count, mark as read and soft-delete. Every statement is scoped to the caller;
// soft-deleted rows are invisible everywhere.
import { and, count, eq, ilike, inArray, isNotNull, isNull, or, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { categoryFilter } from "../../db/categories.js";
import type { Db } from "../../db/client.js";
import { preparedFor } from "../../db/prepared.js";
import { notificationCounts, notifications } from "../../db/schema/index.js";
import type { AuthedContext, HandlerArgs } from "../context.js";
import { forbidden, notFound } from "../errors/errors.js";
import { isUuid } from "../http/text.js";
import { rememberedCount } from "../memory/counts.js";
import { type KnownTotal, searchTotalKey } from "../memory/search-totals.js";
import { hasMore, pageWindow } from "./pagination.js";
import type { ListInput, MarkAllReadInput, RemoveManyInput } from "./schemas.js";
import { containsPattern } from "./search.js";
import { fromNotificationJson, type NotificationJson, type NotificationView } from "./view.js";

export type NotificationList = {
  notifications: NotificationView[];
  total: number;
  unread_count: number;
  page: number;
  has_more: boolean;
};

const visibleTo = (userId: string | Placeholder) => and(eq(notifications.userId, userId), isNull(notifications.deletedAt));
const unread = isNull(notifications.readAt);

/** The values a page is asked with, or the placeholders of a prepared statement that takes them. */
type ListParams<T> = { userId: string | T; category: string | T | null; search: string | T | null; limit: number | T; offset: number | T };

const placeholders: ListParams<Placeholder> = {
  userId: sql.placeholder("userId"),
  category: sql.placeholder("category"),
  search: null,
  limit: sql.placeholder("limit"),
  offset: sql.placeholder("offset"),
};

/** The page's order, for its rows as `p`: newest first, as the inbox indexes hold them. */
const pageOrder = sql.raw("order by p.date_created desc nulls last, p.id desc nulls last");

/** The page beside both counts in one statement; `known`, a search total that may still hold. */
function listQuery(db: Db, p: ListParams<Placeholder>, known?: KnownTotal) {
  const filters: SQL[] = [];
  if (p.category !== null) filters.push(eq(notifications.category, p.category));
  if (p.search !== null) filters.push(or(ilike(notifications.title, p.search), ilike(notifications.body, p.search))!);
  const matching = and(visibleTo(p.userId), ...filters);

  // Both counts from the caller's notification_counts rows (a primary-key read, whatever the inbox's size);
  // only a search total must count the matching rows themselves, unless it is known for this very state of
  // the inbox (server/memory/search-totals.ts). PostgreSQL runs the count only when the CASE reaches it.
  const version = sql<string | null>`string_agg(${notificationCounts.version}::text, ',' order by ${notificationCounts.version})`;
  const totalOf =
    p.search !== null
      ? sql<number>`(case when ${version} = ${known?.version ?? null} then ${known?.total ?? 0}::int
          else ${db.select({ n: count() }).from(notifications).where(matching)}::int end)`
      : p.category !== null
        ? sql<number>`coalesce(sum(${notificationCounts.total}) filter (where ${eq(notificationCounts.category, p.category)}), 0)::int`
        : sql<number>`coalesce(sum(${notificationCounts.total}), 0)::int`;
  const counts = db
    .select({
      total: totalOf.as("total"),
      unread: sql<number>`coalesce(sum(${notificationCounts.unread}), 0)::int`.as("unread"),
      version: (p.search !== null ? version : sql<null>`null`).as("version"),
    })
    .from(notificationCounts)
    .where(eq(notificationCounts.userId, p.userId))
    .as("counts");
  // NULLS LAST as in the inbox indexes (drizzle-kit writes `.desc()` index columns as DESC NULLS LAST).
  // A plain DESC means NULLS FIRST, which no index provides, so PostgreSQL read and sorted all of the
  // caller's rows for every page. Both columns are NOT NULL, so the order itself is unchanged.
  const page = db
    .select({
      id: notifications.id,
      eventType: notifications.eventType,
      category: notifications.category,
      title: notifications.title,
      body: notifications.body,
      data: notifications.data,
      dateCreated: notifications.dateCreated,
      readAt: notifications.readAt,
    })
    .from(notifications)
    .where(matching)
    .orderBy(sql`${notifications.dateCreated} desc nulls last`, sql`${notifications.id} desc nulls last`)
    .limit(p.limit)
    .offset(p.offset);
  // One row: the counts (an aggregate without GROUP BY answers a row even for no counts rows) beside the
  // page as one JSON array, in the page's order. Drizzle maps a row field by field, checking each field's
  // kind, and postgres.js reads each row on its own: with a row per notification, that was a tenth of a
  // page's CPU (BENCHMARKS.md, issue AE); with one row per notification field, a fifth (issue W). Each
  // notification is an array of its fields (view.ts), which PostgreSQL writes in ~15 % less time than an
  // object with their names.
  return db
    .select({
      total: counts.total,
      unread: counts.unread,
      version: counts.version,
      notifications: sql<NotificationJson[]>`(select coalesce(json_agg(json_build_array(
        p.id, p.event_type, p.category, p.title, p.body, p.data, p.date_created, p.read_at) ${pageOrder}), '[]'::json) from ${page} p)`,
    })
    .from(counts);
}

// Prepared without a search, with and without a category. A search is planned for its own text each time:
// a generic plan could not know whether the trigram indexes or the inbox order serve a pattern better.
const inboxPage = preparedFor((db) => listQuery(db, { ...placeholders, category: null }).prepare("inbox_page"));
const inboxCategoryPage = preparedFor((db) => listQuery(db, placeholders).prepare("inbox_category_page"));

async function pageRows(ctx: AuthedContext, params: ListParams<never>) {
  if (params.search === null) return (params.category === null ? inboxPage(ctx.db) : inboxCategoryPage(ctx.db)).execute(params);
  const key = searchTotalKey(params.userId, params.category, params.search);
  const rows = await listQuery(ctx.db, params, ctx.searchTotals?.get(key));
  const [row] = rows;
  if (row?.version) ctx.searchTotals?.remember(key, { version: row.version, total: row.total });
  return rows;
}

export async function listNotifications({ ctx, input }: HandlerArgs<ListInput>): Promise<NotificationList> {
  const window = pageWindow(input.page, input.limit);
  const category = categoryFilter(input.category);
  const search = input.search ? containsPattern(input.search) : null;
  const [row] = await pageRows(ctx, { userId: ctx.user.id, category, search, limit: window.limit, offset: window.offset });
  return {
    notifications: row!.notifications.map((n) => fromNotificationJson(ctx.user.id, n)),
    total: row!.total,
    unread_count: row!.unread,
    page: window.page,
    has_more: hasMore(window, row!.total),
  };
}

const unreadCountStatement = preparedFor((db) =>
  db
    .select({ count: sql<number>`coalesce(sum(${notificationCounts.unread}), 0)::int` })
    .from(notificationCounts)
    .where(eq(notificationCounts.userId, sql.placeholder("userId")))
    .prepare("unread_count"),
);

/** A user's unread count: the badge, and every event of the live stream (server/live/). */
export async function countUnread(db: Db, userId: string): Promise<number> {
  const [row] = await unreadCountStatement(db).execute({ userId });
  return row?.count ?? 0;
}

export async function unreadCount({ ctx }: HandlerArgs): Promise<{ count: number }> {
  return { count: await rememberedCount(ctx.unreadCounts, ctx.user.id, () => countUnread(ctx.db, ctx.user.id)) };
}

/** The caller's visible notification of the statement's `id`. */
const ownNotification = and(eq(notifications.id, sql.placeholder("id")), visibleTo(sql.placeholder("userId")));

/** Hides one of the caller's visible notifications; answers the ids it hid (none or one). */
const removeStatement = preparedFor((db) =>
  db
    .update(notifications)
    .set({ deletedAt: sql`now()` })
    .where(ownNotification)
    .returning({ id: notifications.id })
    .prepare("remove_own_notification"),
);

/**
 * Marks one of the caller's visible notifications read, answering its id when it was read before or is now.
 * One already read is only looked at, not written again: it keeps its first readAt, and PostgreSQL makes no
 * new row version and no commit to flush (apps mark what is on screen, so most marks find it read). One
 * read by someone else's statement between this one's look and its update answers no id (see below).
 */
const markReadStatement = preparedFor((db) => {
  const target = db
    .$with("target")
    .as(db.select({ id: notifications.id, readAt: notifications.readAt }).from(notifications).where(ownNotification));
  const marked = db
    .$with("marked")
    .as(db.update(notifications).set({ readAt: sql`now()` }).where(and(ownNotification, unread)).returning({ id: notifications.id }));
  return db
    .with(target, marked)
    .select({ id: target.id })
    .from(target)
    .leftJoin(marked, eq(marked.id, target.id))
    .where(or(isNotNull(target.readAt), isNotNull(marked.id)))
    .prepare("mark_own_notification_read");
});

/**
 * Runs a statement on one of the caller's visible notifications. When it answers no id, one more read tells
 * why: no such (visible) notification → 404, someone else's → 403.
 */
async function changeOwnNotification(
  ctx: AuthedContext,
  id: string,
  statement: typeof removeStatement | typeof markReadStatement,
): Promise<{ success: true }> {
  if (!isUuid(id)) throw notFound("Notification", id);
  const changed = await statement(ctx.db).execute({ id, userId: ctx.user.id });
  if (changed.length) return { success: true };
  const [other] = await ctx.db
    .select({ userId: notifications.userId })
    .from(notifications)
    .where(and(eq(notifications.id, id), isNull(notifications.deletedAt)));
  if (!other) throw notFound("Notification", id);
  // The caller's own visible row matched no statement only when a concurrent mark-read committed in
  // between (nothing turns a read row unread or brings a deleted one back): it is read, as asked.
  if (other.userId === ctx.user.id) return { success: true };
  throw forbidden();
}

export const markRead = ({ ctx, input }: HandlerArgs<{ id: string }>) => changeOwnNotification(ctx, input.id, markReadStatement);

export const removeNotification = ({ ctx, input }: HandlerArgs<{ id: string }>) => changeOwnNotification(ctx, input.id, removeStatement);

/**
 * Sets `set` on the caller's rows that match `where`, locking them in id order first. Two bulk changes of
 * one inbox (read-all, delete-many) that each locked rows in their own scan's order deadlocked on
 * PostgreSQL (test/integration/concurrency.test.ts); in one order, one simply waits for the other.
 */
async function changeInIdOrder(ctx: AuthedContext, set: PgUpdateSetSource<typeof notifications>, where: SQL) {
  const locked = ctx.db.select({ id: notifications.id }).from(notifications).where(where).orderBy(notifications.id).for("update");
  return ctx.db
    .update(notifications)
    .set(set)
    .where(and(inArray(notifications.id, locked), where))
    .returning({ id: notifications.id });
}

export async function markAllRead({ ctx, input }: HandlerArgs<MarkAllReadInput>): Promise<{ updated: number }> {
  const category = categoryFilter(input.category);
  const where = and(visibleTo(ctx.user.id), unread, category ? eq(notifications.category, category) : undefined)!;
  const changed = await changeInIdOrder(ctx, { readAt: sql`now()` }, where);
  return { updated: changed.length };
}

/** Ids that are not UUIDs cannot be the caller's notifications: they are skipped, like anyone else's. */
export async function removeMany({ ctx, input }: HandlerArgs<RemoveManyInput>): Promise<{ deleted: number }> {
  const ids = [...new Set(input.ids.filter(isUuid))];
  if (!ids.length) return { deleted: 0 };
  const changed = await changeInIdOrder(ctx, { deletedAt: sql`now()` }, and(inArray(notifications.id, ids), visibleTo(ctx.user.id))!);
  return { deleted: changed.length };
}
