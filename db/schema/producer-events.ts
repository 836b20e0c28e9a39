// Notifications from other services (docs/producers.md#sending-notifications-from-a-service): each producer's
// events, kept so that an event sent twice is one notification, and the push deliveries they queued, sent
// after commit by whichever instance claims them (server/push/delivery-queue.ts).
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./auth.js";
import { isOneOf } from "./checks.js";
import { deliveryStatuses, noPushReasons } from "./delivery-statuses.js";
import { pushSubscriptions } from "./notifications.js";

const tz = { withTimezone: true } as const;

export { deliveryStatuses, noPushReasons } from "./delivery-statuses.js";

/**
 * One row per producer and eventId, kept RETENTION_DAYS (server/producers/retention.ts): a repeat within them
 * is a duplicate of the first. Removed with its user.
 */
export const notificationEvents = pgTable(
  "notification_events",
  {
    /** The producer: the API key's name. */
    producer: text("producer").notNull(),
    eventId: text("event_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The notification it made; null when the user takes no in-app notifications of its category. */
    notificationId: uuid("notification_id"),
    /** Why no push was queued (noPushReasons); null when one was, or for an event received before 0019. */
    noPush: text("no_push", { enum: noPushReasons }),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "notification_events_pkey", columns: [t.producer, t.eventId] }),
    check("notification_events_no_push_valid", isOneOf(t.noPush, noPushReasons)),
    index("notification_events_created_idx").on(t.createdAt),
    // The admin deliveries view by user, newest first (and the user's removal).
    index("notification_events_user_idx").on(t.userId, t.createdAt.desc(), t.eventId.desc()),
  ],
);

/** One Web Push message to one subscription, from one event; removed with its subscription (and so its user). */
export const pushDeliveries = pgTable(
  "push_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    producer: text("producer").notNull(),
    eventId: text("event_id").notNull(),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => pushSubscriptions.id, { onDelete: "cascade" }),
    /** The JSON the push carries ({title, body, url}). */
    payload: jsonb("payload").notNull(),
    urgency: text("urgency").notNull(),
    status: text("status", { enum: deliveryStatuses }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", tz).notNull().defaultNow(),
    /** Claimed by an instance until then; another may claim it after (a crashed sender). */
    leaseUntil: timestamp("lease_until", tz),
    /** The claim's own token: only the instance holding it may send or record (server/push/delivery-queue.ts). */
    leaseToken: uuid("lease_token"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    sentAt: timestamp("sent_at", tz),
    /** RFC 8030 Topic (1–32 of A-Z a-z 0-9 - _): a newer delivery with the same subscription and topic supersedes this one while unsent. */
    topic: text("topic"),
    /** When the service worker reported showing it (or a click, which implies it). */
    displayedAt: timestamp("displayed_at", tz),
    /** When the service worker, or the page a declarative push opened, reported a click. */
    clickedAt: timestamp("clicked_at", tz),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
  },
  (t) => [
    check("push_deliveries_status_valid", isOneOf(t.status, deliveryStatuses)),
    // The queue: due deliveries first, queued ones only.
    index("push_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'queued'`),
    index("push_deliveries_event_idx").on(t.producer, t.eventId),
    index("push_deliveries_subscription_idx").on(t.subscriptionId),
    // Collapse: the queued deliveries of one subscription and topic, found without reading the others.
    index("push_deliveries_topic_idx").on(t.subscriptionId, t.topic).where(sql`${t.status} = 'queued' and ${t.topic} is not null`),
    // Retention prunes by age.
    index("push_deliveries_created_idx").on(t.createdAt),
  ],
);
