import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgSequence,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { CATEGORIES } from "../categories.js";
import { users } from "./auth.js";
import { isOneOf } from "./checks.js";

const tz = { withTimezone: true } as const;

export const notifications = pgTable(
  "notifications",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    category: text("category").notNull(),
    title: text("title").notNull(),
    body: text("body"),
    /** Extra data of the notification (the admin test endpoint stores `{url}`); the API shows objects only. */
    data: jsonb("data"),
    dateCreated: timestamp("date_created", tz).notNull().defaultNow(),
    readAt: timestamp("read_at", tz),
    deletedAt: timestamp("deleted_at", tz),
  },
  (t) => [
    check("notifications_category_valid", isOneOf(t.category, CATEGORIES)),
    // The inbox: newest first, per user, optionally per category; deleted rows never listed.
    index("notifications_inbox_idx").on(t.userId, t.dateCreated.desc(), t.id.desc()).where(sql`${t.deletedAt} is null`),
    index("notifications_inbox_category_idx")
      .on(t.userId, t.category, t.dateCreated.desc(), t.id.desc())
      .where(sql`${t.deletedAt} is null`),
    // The unread badge and read-all.
    index("notifications_unread_idx").on(t.userId, t.category).where(sql`${t.readAt} is null and ${t.deletedAt} is null`),
    // The inbox search (ILIKE '%text%' on title or body): trigram GIN indexes that also hold the user
    // (btree_gin), so one user's matches are found without reading the rest of their inbox or anyone's.
    index("notifications_search_title_idx").using("gin", t.userId, t.title.op("gin_trgm_ops")).where(sql`${t.deletedAt} is null`),
    index("notifications_search_body_idx").using("gin", t.userId, t.body.op("gin_trgm_ops")).where(sql`${t.deletedAt} is null`),
  ],
);

/** Where notification_counts' versions come from: each value is handed out once, whatever rolls back. */
export const notificationCountsVersion = pgSequence("notification_counts_version");

/**
 * Per user and category: `total` visible notifications (deleted_at is null) and `unread` of them (read_at is
 * null), so the badge and the list's counts are a primary-key read whatever the inbox's size. Kept by
 * statement triggers on `notifications` in the same transaction as every change, whichever code path
 * makes it (migration 0007_notification_counts). A missing row means 0.
 */
export const notificationCounts = pgTable(
  "notification_counts",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    category: text("category").notNull(),
    total: integer("total").notNull().default(0),
    unread: integer("unread").notNull().default(0),
    /**
     * A value never given before, taken whenever this row changes or the title or body of one of its visible
     * notifications does (migration 0025): a user's versions name one state of their inbox, which a
     * remembered search total is checked against (server/memory/search-totals.ts).
     */
    version: bigint("version", { mode: "number" }).notNull().default(sql`nextval('notification_counts_version')`),
  },
  (t) => [primaryKey({ name: "notification_counts_pkey", columns: [t.userId, t.category] })],
);

export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    userAgent: text("user_agent"),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", tz).notNull().defaultNow(),
  },
  (t) => [
    // A push endpoint identifies one browser subscription: the upsert key.
    uniqueIndex("push_subscriptions_endpoint_idx").on(t.endpoint),
    index("push_subscriptions_user_active_idx").on(t.userId).where(sql`${t.isActive}`),
  ],
);

/**
 * A user's choice per category and channel (docs/api.md#preferences): a row only once the user changed a
 * category; a missing row means both channels on. Producers' events honour it; the admin test endpoints do not.
 */
export const notificationPreferences = pgTable(
  "notification_preferences",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    category: text("category").notNull(),
    inApp: boolean("in_app").notNull().default(true),
    push: boolean("push").notNull().default(true),
    updatedAt: timestamp("updated_at", tz).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "notification_preferences_pkey", columns: [t.userId, t.category] }),
    check("notification_preferences_category_valid", isOneOf(t.category, CATEGORIES)),
  ],
);
