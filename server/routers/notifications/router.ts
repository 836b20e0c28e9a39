// Notifications: wiring only. Every procedure needs a signed-in caller; the test* ones a platform admin.
import { adminProcedure, authedProcedure, router } from "../../trpc/index.js";
import { createTestNotification, listAllSubscriptions, sendTestPush } from "./admin-test.js";
import {
  listNotifications,
  markAllRead,
  markRead,
  removeMany,
  removeNotification,
  unreadCount,
} from "./inbox.js";
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

export const notificationsRouter = router({
  list: authedProcedure.input(listInput).query(listNotifications),
  unreadCount: authedProcedure.query(unreadCount),
  markRead: authedProcedure.input(notificationIdInput).mutation(markRead),
  markAllRead: authedProcedure.input(markAllReadInput).mutation(markAllRead),
  remove: authedProcedure.input(notificationIdInput).mutation(removeNotification),
  removeMany: authedProcedure.input(removeManyInput).mutation(removeMany),

  listSubscriptions: authedProcedure.query(listSubscriptions),
  subscribe: authedProcedure.input(subscribeInput).mutation(subscribe),
  unsubscribe: authedProcedure.input(unsubscribeInput).mutation(unsubscribe),
  /** For browsers that subscribe: the VAPID public key (applicationServerKey), null when unset. */
  vapidPublicKey: authedProcedure.query(({ ctx }) => ({ publicKey: ctx.push.vapid?.publicKey ?? null })),

  testInApp: adminProcedure.input(testNotificationInput).mutation(createTestNotification),
  testPush: adminProcedure.input(testNotificationInput).mutation(sendTestPush),
  testListSubscriptions: adminProcedure.query(listAllSubscriptions),
  testClearSubscriptions: adminProcedure.mutation(deactivateOwnSubscriptions),
});
