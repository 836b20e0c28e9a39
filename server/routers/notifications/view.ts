// The Notification resource as the API shows it: no deletedAt, and `data` parsed from the stored text.
import type { notifications } from "../../../db/schema/index.js";

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

/** The stored JSON as an object; null when absent, unparseable or not an object (docs/api.md#the-notification). */
export function parseData(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
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
    data: parseData(row.data),
  };
}
