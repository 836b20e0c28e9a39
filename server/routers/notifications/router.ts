// Notifications: wiring only. Every procedure needs a signed-in caller; the test* ones a platform admin.

import { createTestNotification, listAllSubscriptions, sendTestPush } from "../../notifications/admin-test.js";
import { listNotifications, markAllRead, markRead, removeMany, removeNotification, unreadCount } from "../../notifications/inbox.js";
import { getPreferences, updatePreferences } from "../../notifications/preferences.js";
import { deactivateOwnSubscriptions, listSubscriptions, subscribe, unsubscribe } from "../../notifications/subscriptions.js";
import { unreadCountEvents } from "../../notifications/unread-subscription.js";
import { adminProcedure, authedProcedure, rateLimited, router } from "../../trpc/index.js";
import { notificationsContract as c } from "./contract.js";

export const notificationsRouter = router({
  list: authedProcedure.input(c.list.input).query(listNotifications),
  unreadCount: authedProcedure.query(unreadCount),
  markRead: authedProcedure.input(c.markRead.input).mutation(markRead),
  markAllRead: authedProcedure.input(c.markAllRead.input).mutation(markAllRead),
  remove: authedProcedure.input(c.remove.input).mutation(removeNotification),
  removeMany: authedProcedure.input(c.removeMany.input).mutation(removeMany),

  listSubscriptions: authedProcedure.query(listSubscriptions),
  subscribe: authedProcedure.input(c.subscribe.input).mutation(subscribe),
  unsubscribe: authedProcedure.input(c.unsubscribe.input).mutation(unsubscribe),
  /** For browsers that subscribe: the VAPID public key (applicationServerKey), null when unset. */
  vapidPublicKey: authedProcedure.query(({ ctx }) => ({ publicKey: ctx.push.vapid?.publicKey ?? null })),
  /** Where a notification's path leads: APP_BASE_URL, for every signed-in user's inbox (null when unset). */
  app: authedProcedure.query(({ ctx }) => ({ appBaseUrl: ctx.appBaseUrl ?? null })),
  getPreferences: authedProcedure.query(getPreferences),
  updatePreferences: authedProcedure.input(c.updatePreferences.input).mutation(updatePreferences),
  /** The caller's unread count on subscribing and after every change (SSE; docs/api.md#live-unread-count). */
  onUnreadCount: authedProcedure.subscription(unreadCountEvents),

  testInApp: adminProcedure.input(c.testInApp.input).mutation(createTestNotification),
  // Each one fans out to every subscription of a user.
  testPush: adminProcedure.use(rateLimited("testPush")).input(c.testPush.input).mutation(sendTestPush),
  testListSubscriptions: adminProcedure.query(listAllSubscriptions),
  testClearSubscriptions: adminProcedure.mutation(deactivateOwnSubscriptions),
});
