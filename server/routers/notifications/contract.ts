// The notifications procedures' public shapes (server/routers/contract.ts): kind, input, answer.

import {
  listInput,
  markAllReadInput,
  notificationIdInput,
  preferencesPatchInput,
  removeManyInput,
  subscribeInput,
  testNotificationInput,
  unsubscribeInput,
} from "../../notifications/schemas.js";
import { mutation, query, subscription } from "../contract.js";
import {
  adminSubscriptionListOutput,
  appOutput,
  doneOutput,
  markAllReadOutput,
  notificationPageOutput,
  preferencesOutput,
  removeManyOutput,
  subscribeOutput,
  subscriptionListOutput,
  testInAppOutput,
  testPushOutput,
  unreadCountOutput,
  vapidPublicKeyOutput,
} from "./outputs.js";

export const notificationsContract = {
  list: query(notificationPageOutput, listInput),
  unreadCount: query(unreadCountOutput),
  markRead: mutation(doneOutput, notificationIdInput),
  markAllRead: mutation(markAllReadOutput, markAllReadInput),
  remove: mutation(doneOutput, notificationIdInput),
  removeMany: mutation(removeManyOutput, removeManyInput),

  listSubscriptions: query(subscriptionListOutput),
  subscribe: mutation(subscribeOutput, subscribeInput),
  unsubscribe: mutation(doneOutput, unsubscribeInput),
  vapidPublicKey: query(vapidPublicKeyOutput),
  app: query(appOutput),
  getPreferences: query(preferencesOutput),
  updatePreferences: mutation(preferencesOutput, preferencesPatchInput),
  /** Each event: the caller's unread count, on subscribing and after every change. */
  onUnreadCount: subscription(unreadCountOutput),

  testInApp: mutation(testInAppOutput, testNotificationInput),
  testPush: mutation(testPushOutput, testNotificationInput),
  testListSubscriptions: query(adminSubscriptionListOutput),
  testClearSubscriptions: mutation(doneOutput),
};
