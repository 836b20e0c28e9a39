// What each notifications procedure answers, as zod schemas with a description per field: the REST
// reference's payloads, the REST serializer's schemas and the AppRouter type apps import are made from them
// (as server/routers/restriction/outputs.ts says).
import { z } from "zod";
import { CATEGORIES } from "../../../db/categories.js";

const instant = (what: string) => z.date().describe(`${what} (ISO 8601 date-time, UTC)`);

export const notificationOutput = z
  .object({
    id: z.string().describe("The notification's id (a UUID)"),
    userId: z.string().describe("The user it is for"),
    eventType: z.string().describe("The event type, e.g. message.received"),
    category: z.string().describe(`The category its event type maps to: ${CATEGORIES.join(", ")}`),
    title: z.string().describe("The title"),
    body: z.string().nullable().describe("The text under the title; null when there is none"),
    dateCreated: instant("When it was created"),
    readAt: instant("When it was read").nullable().describe("When it was read; null while unread"),
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("Data for the client, e.g. { url } for where a click leads; null when there is none"),
  })
  .meta({ id: "Notification", description: "A notification in a user's inbox" });

const subscriptionFields = {
  id: z.string().describe("The subscription's id (a UUID)"),
  userId: z.string().describe("The user it belongs to"),
  endpoint: z.string().describe("The push service URL"),
  p256dh: z.string().describe("The browser's public key (base64url)"),
  auth: z.string().describe("The browser's auth secret (base64url)"),
  userAgent: z.string().nullable().describe("The User-Agent of the request that registered it; null when none was sent"),
  isActive: z.boolean().describe("false once unsubscribed or refused by its push service (404/410)"),
  createdAt: instant("When it was first registered"),
  updatedAt: instant("When it was last registered or changed"),
};

export const subscriptionOutput = z
  .object(subscriptionFields)
  .meta({ id: "PushSubscription", description: "A browser's Web Push subscription" });

const adminSubscriptionOutput = z
  .object({
    ...subscriptionFields,
    userName: z.string().describe("The user's name (Unknown when the user is gone)"),
    userEmail: z.string().describe("The user's email address (empty when the user is gone)"),
  })
  .meta({ id: "AdminPushSubscription", description: "A push subscription with its user, as the admin test page lists it" });

export const notificationPageOutput = z
  .object({
    notifications: z.array(notificationOutput).describe("The page's notifications, newest first"),
    total: z.number().int().describe("How many notifications match the filters, over all pages"),
    unread_count: z.number().int().describe("How many of the caller's notifications are unread (all categories)"),
    page: z.number().int().describe("The page served, from 1"),
    has_more: z.boolean().describe("Whether a later page holds more"),
  })
  .meta({ id: "NotificationPage", description: "One page of the caller's inbox" });

export const unreadCountOutput = z.object({ count: z.number().int().describe("How many of the caller's notifications are unread") });
export const doneOutput = z.object({ success: z.literal(true).describe("Always true: the change was made") });
export const markAllReadOutput = z.object({ updated: z.number().int().describe("How many notifications were marked read") });
export const removeManyOutput = z.object({ deleted: z.number().int().describe("How many notifications were soft-deleted") });
export const subscriptionListOutput = z.object({
  subscriptions: z.array(subscriptionOutput).describe("The caller's active subscriptions"),
});
export const subscribeOutput = z.object({ subscription: subscriptionOutput.describe("The subscription as stored") });
export const vapidPublicKeyOutput = z.object({
  publicKey: z.string().nullable().describe("The applicationServerKey to subscribe with (base64url); null when push is not configured"),
});
export const appOutput = z.object({
  appBaseUrl: z
    .string()
    .nullable()
    .describe("APP_BASE_URL: the platform app's origin, which a notification's path (`/leads/7`) is relative to; null when unset"),
});
export const testInAppOutput = z.object({ notification: notificationOutput.describe("The notification created") });
export const testPushOutput = z.object({
  sent: z.number().int().describe("Subscriptions whose push service accepted the message"),
  failed: z.number().int().describe("Subscriptions where sending failed"),
  deactivated: z.number().int().describe("Subscriptions deactivated because their push service answered 404 or 410"),
  results: z
    .array(
      z.object({
        subscriptionId: z.string().describe("The subscription"),
        statusCode: z.number().int().nullable().describe("The push service's HTTP status; null when it could not be reached"),
        ok: z.boolean().describe("Whether the push service accepted the message"),
        error: z.string().optional().describe("Why sending failed, when it did"),
      }),
    )
    .describe("One result per active subscription of the user"),
});
export const adminSubscriptionListOutput = z.object({
  subscriptions: z.array(adminSubscriptionOutput).describe("Every user's subscriptions, active and inactive, oldest first"),
});

const channelsOutput = z.object({
  inApp: z.boolean().describe("In-app notifications of this category are stored in the inbox"),
  push: z.boolean().describe("Web Push messages of this category are sent"),
});

export const preferencesOutput = z.object({
  preferences: z
    .object(
      Object.fromEntries(CATEGORIES.map((category) => [category, channelsOutput])) as Record<
        (typeof CATEGORIES)[number],
        typeof channelsOutput
      >,
    )
    .meta({ id: "NotificationPreferences", description: "Per category, the channels the user takes: all on until changed" }),
});
