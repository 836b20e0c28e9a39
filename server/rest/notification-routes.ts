// The REST rows of the notifications API: the inbox, preferences, push subscriptions, the admin test tools (routes.ts).
import type { RestRoute } from "./route-types.js";

const NOTIFICATIONS = "/api/notifications";

// Static paths (/unread-count, /read-all, /bulk, /subscriptions, /test/*, /vapid-public-key, /app) win over
// /:id: Fastify prefers static segments whatever the order here.
export const notificationRoutes = [
  {
    method: "GET",
    path: NOTIFICATIONS,
    procedure: "notifications.list",
    input: "query",
    query: { category: "text", search: "text", page: "number", limit: "number" },
    summary: "List the caller's notifications, newest first (category, search, page, limit)",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/unread-count`,
    procedure: "notifications.unreadCount",
    summary: "Count the caller's unread notifications",
  },
  {
    method: "PATCH",
    path: `${NOTIFICATIONS}/read-all`,
    procedure: "notifications.markAllRead",
    input: "query",
    query: { category: "text" },
    summary: "Mark all the caller's notifications read, optionally of one category",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/bulk`,
    procedure: "notifications.removeMany",
    input: "body",
    summary: "Soft-delete several of the caller's notifications by id",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/subscriptions`,
    procedure: "notifications.listSubscriptions",
    summary: "List the caller's active push subscriptions",
  },
  {
    method: "POST",
    path: `${NOTIFICATIONS}/subscriptions`,
    procedure: "notifications.subscribe",
    input: "body",
    summary: "Register a push subscription (upsert by endpoint)",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/subscriptions`,
    procedure: "notifications.unsubscribe",
    input: "body",
    summary: "Deactivate the caller's push subscription with this endpoint",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/preferences`,
    procedure: "notifications.getPreferences",
    summary: "The caller's preferences: per category, in-app and push (all on until changed)",
  },
  {
    method: "PATCH",
    path: `${NOTIFICATIONS}/preferences`,
    procedure: "notifications.updatePreferences",
    input: "body",
    summary: "Change any part of the caller's preferences; answers them whole",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/vapid-public-key`,
    procedure: "notifications.vapidPublicKey",
    summary: "The VAPID public key browsers subscribe with (null when unset)",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/app`,
    procedure: "notifications.app",
    summary: "The platform app's origin (APP_BASE_URL) a notification's path is relative to (null when unset)",
  },
  {
    method: "POST",
    path: `${NOTIFICATIONS}/test/in-app`,
    procedure: "notifications.testInApp",
    input: "body",
    summary: "Admin: create an in-app notification for a user",
  },
  {
    method: "POST",
    path: `${NOTIFICATIONS}/test/push`,
    procedure: "notifications.testPush",
    input: "body",
    summary: "Admin: send a push message to every active subscription of a user",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/test/subscriptions`,
    procedure: "notifications.testListSubscriptions",
    summary: "Admin: list every user's push subscriptions",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/test/subscriptions`,
    procedure: "notifications.testClearSubscriptions",
    summary: "Admin: deactivate all of the caller's own push subscriptions",
  },
  {
    method: "PATCH",
    path: `${NOTIFICATIONS}/:id/read`,
    procedure: "notifications.markRead",
    input: "path",
    summary: "Mark one of the caller's notifications read",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/:id`,
    procedure: "notifications.remove",
    input: "path",
    summary: "Soft-delete one of the caller's notifications",
  },
] satisfies RestRoute[];
