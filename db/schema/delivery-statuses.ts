// What became of a push delivery (docs/api.md#durable-push-delivery). A constant only, free of any import:
// the table constrains its column to these, and the procedures' answers describe them without the schema's
// drizzle types reaching an app that imports AppRouter (test/consumer).

/** How one delivery ended, as the push_deliveries_total metric counts it (server/observability/metrics.ts). */
export type PushDeliveryResult = "delivered" | "gone" | "failed" | "address_not_allowed";

/**
 * `superseded`: a newer delivery for the same subscription and topic came before this one was sent, so it
 * never is (server/push/collapse.ts).
 */
export const deliveryStatuses = ["queued", "sent", "failed", "gone", "superseded"] as const;

/** What a service worker or page reports with a delivery's receipt (server/push/receipts.ts). */
export const receiptStages = ["displayed", "clicked"] as const;

/**
 * Why an event queued no push delivery (docs/producers.md#sending-notifications-from-a-service), recorded when it
 * is received: the user turned push off for its category, the service has no VAPID keys, or the user had
 * no active push subscription (checked in that order). Null when deliveries were queued.
 */
export const noPushReasons = ["push_off", "push_not_configured", "no_subscription"] as const;
