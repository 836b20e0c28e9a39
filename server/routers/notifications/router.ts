// Notifications: wiring only. Every procedure needs a signed-in caller; the test* ones a platform admin.
import { unreadCountEvents } from "../../live/subscription.js";
import { adminProcedure, authedProcedure, rateLimited, router } from "../../trpc/index.js";
import { createTestNotification, listAllSubscriptions, sendTestPush } from "./admin-test.js";
import { listNotifications, markAllRead, markRead, removeMany, removeNotification, unreadCount } from "./inbox.js";
import {
  listInput,
  markAllReadInput,
  notificationIdInput,
  removeManyInput,
  subscribeInput,
  testNotificationInput,
  unsubscribeInput,
} from "./schemas.js";
import { deactivateOwnSubscriptions, listSubscriptions, subscribe, unsubscribe } from "./subscriptions.js";

/** The input schema of each procedure that takes input: the router parses with it, the REST reference shows it. */
export const notificationInputs = {
  list: listInput,
  markRead: notificationIdInput,
  markAllRead: markAllReadInput,
  remove: notificationIdInput,
  removeMany: removeManyInput,
  subscribe: subscribeInput,
  unsubscribe: unsubscribeInput,
  testInApp: testNotificationInput,
  testPush: testNotificationInput,
};
const input = notificationInputs;

export const notificationsRouter = router({
  list: authedProcedure.input(input.list).query(listNotifications),
  unreadCount: authedProcedure.query(unreadCount),
  markRead: authedProcedure.input(input.markRead).mutation(markRead),
  markAllRead: authedProcedure.input(input.markAllRead).mutation(markAllRead),
  remove: authedProcedure.input(input.remove).mutation(removeNotification),
  removeMany: authedProcedure.input(input.removeMany).mutation(removeMany),

  listSubscriptions: authedProcedure.query(listSubscriptions),
  subscribe: authedProcedure.input(input.subscribe).mutation(subscribe),
  unsubscribe: authedProcedure.input(input.unsubscribe).mutation(unsubscribe),
  /** For browsers that subscribe: the VAPID public key (applicationServerKey), null when unset. */
  vapidPublicKey: authedProcedure.query(({ ctx }) => ({ publicKey: ctx.push.vapid?.publicKey ?? null })),
  /** The caller's unread count on subscribing and after every change (SSE; docs/api.md#live-unread-count). */
  onUnreadCount: authedProcedure.subscription(unreadCountEvents),

  testInApp: adminProcedure.input(input.testInApp).mutation(createTestNotification),
  // Each one fans out to every subscription of a user.
  testPush: adminProcedure.use(rateLimited("testPush")).input(input.testPush).mutation(sendTestPush),
  testListSubscriptions: adminProcedure.query(listAllSubscriptions),
  testClearSubscriptions: adminProcedure.mutation(deactivateOwnSubscriptions),
});
