// Notifications from other services (docs/api.md#sending-notifications-from-a-service): each producer's
// events, kept so that an event sent twice is one notification, and the push deliveries they queued, sent
// after commit by whichever instance claims them (server/push/delivery-queue.ts).
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { isOneOf } from "./checks.js";
import { deliveryStatuses } from "./delivery-statuses.js";

const tz = { withTimezone: true } as const;

export { deliveryStatuses } from "./delivery-statuses.js";

/** One row per producer and eventId, kept at least 30 days: a repeat is a duplicate of the first. */
export const notificationEvents = pgTable(
  "notification_events",
  {
    /** The producer: the API key's name. */
    producer: text("producer").notNull(),
    eventId: text("event_id").notNull(),
    userId: text("user_id").notNull(),
    /** The notification it made; null when the user takes no in-app notifications of its category. */
    notificationId: uuid("notification_id"),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: "notification_events_pkey", columns: [t.producer, t.eventId] }),
    index("notification_events_created_idx").on(t.createdAt),
  ],
);

/** One Web Push message to one subscription, from one event. */
export const pushDeliveries = pgTable(
  "push_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    producer: text("producer").notNull(),
    eventId: text("event_id").notNull(),
    subscriptionId: uuid("subscription_id").notNull(),
    /** The JSON the push carries ({title, body, url}). */
    payload: jsonb("payload").notNull(),
    urgency: text("urgency").notNull(),
    status: text("status", { enum: deliveryStatuses }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", tz).notNull().defaultNow(),
    /** Claimed by an instance until then; another may claim it after (a crashed sender). */
    leaseUntil: timestamp("lease_until", tz),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    sentAt: timestamp("sent_at", tz),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
  },
  (t) => [
    check("push_deliveries_status_valid", isOneOf(t.status, deliveryStatuses)),
    // The queue: due deliveries first, queued ones only.
    index("push_deliveries_due_idx").on(t.nextAttemptAt).where(sql`${t.status} = 'queued'`),
    index("push_deliveries_event_idx").on(t.producer, t.eventId),
  ],
);
