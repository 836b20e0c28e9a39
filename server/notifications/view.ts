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

/**
 * A notification of the caller's as the inbox page's json_build_array writes it (server/notifications/inbox.ts):
 * its fields in this order, timestamps as ISO 8601 text. The owner is the caller, so it is not sent.
 */
export type NotificationJson = [
  id: string,
  eventType: string,
  category: string,
  title: string,
  body: string | null,
  data: unknown,
  dateCreated: string,
  readAt: string | null,
];

export function fromNotificationJson(userId: string, row: NotificationJson): NotificationView {
  return {
    id: row[0],
    userId,
    eventType: row[1],
    category: row[2],
    title: row[3],
    body: row[4],
    dateCreated: new Date(row[6]),
    readAt: row[7] === null ? null : new Date(row[7]),
    data: dataObject(row[5]),
  };
}
