// Why an event queued no push delivery, kept with the event (notification_events.no_push) so that the
// Deliveries view and GET /api/notifications/events/:eventId can say which, long after preferences and
// subscriptions have changed.
import type { noPushReasons } from "../../db/schema/delivery-statuses.js";

export type NoPush = (typeof noPushReasons)[number];

/**
 * The reason, or null when deliveries are queued. The user's choice first (it holds whatever the service's
 * keys), then the service's missing VAPID keys, then the user's lack of an active subscription.
 */
export function noPushReason(pushChosen: boolean, pushEnabled: boolean, activeSubscriptions: number): NoPush | null {
  if (!pushChosen) return "push_off";
  if (!pushEnabled) return "push_not_configured";
  return activeSubscriptions === 0 ? "no_subscription" : null;
}
