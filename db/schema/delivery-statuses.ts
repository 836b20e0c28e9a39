// What became of a push delivery (docs/api.md#durable-push-delivery). A constant only, free of any import:
// the table constrains its column to these, and the procedures' answers describe them without the schema's
// drizzle types reaching an app that imports AppRouter (test/consumer).

export const deliveryStatuses = ["queued", "sent", "failed", "gone"] as const;
