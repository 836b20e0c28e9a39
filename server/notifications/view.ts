// The Notification resource as the API shows it: no deletedAt, and `data` only when it is an object.
import type { notifications } from "../../db/schema/index.js";

export type NotificationRow = typeof notifications.$inferSelect;

export type NotificationView = {
  id: string;
  userId: string;
  eventType: string;
  category: string;
  title: string;
  body: string | null;
  dateCreated: Date;
  readAt: Date | null;
  data: Record<string, unknown> | null;
};

/** The stored data when it is an object (the spec's type); null when absent or any other JSON value. */
export function dataObject(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export function toNotificationView(row: NotificationRow): NotificationView {
  return {
    id: row.id,
    userId: row.userId,
    eventType: row.eventType,
    category: row.category,
    title: row.title,
    body: row.body,
    dateCreated: row.dateCreated,
    readAt: row.readAt,
    data: dataObject(row.data),
  };
}

/** A notification as PostgreSQL's row_to_json writes it: column names, timestamps as ISO 8601 text. */
export type NotificationJson = {
  id: string;
  user_id: string;
  event_type: string;
  category: string;
  title: string;
  body: string | null;
  data: unknown;
  date_created: string;
  read_at: string | null;
};

export function fromNotificationJson(row: NotificationJson): NotificationView {
  return {
    id: row.id,
    userId: row.user_id,
    eventType: row.event_type,
    category: row.category,
    title: row.title,
    body: row.body,
    dateCreated: new Date(row.date_created),
    readAt: row.read_at === null ? null : new Date(row.read_at),
    data: dataObject(row.data),
  };
}
