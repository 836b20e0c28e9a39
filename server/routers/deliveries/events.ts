// Producers' recent events and what became of their pushes, for operators (the console's Deliveries view).
import { and, asc, desc, eq, or, type SQL } from "drizzle-orm";
import { notificationEvents, pushDeliveries } from "../../../db/schema/index.js";
import type { HandlerArgs } from "../types.js";
import type { RecentEventsInput } from "./schemas.js";

export async function recentEvents({ ctx, input }: HandlerArgs<RecentEventsInput>) {
  const where: SQL[] = [];
  if (input.producer) where.push(eq(notificationEvents.producer, input.producer));
  if (input.userId) where.push(eq(notificationEvents.userId, input.userId));
  const events = await ctx.db
    .select()
    .from(notificationEvents)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(notificationEvents.createdAt), desc(notificationEvents.eventId))
    .limit(input.limit ?? 50);
  const deliveries = events.length
    ? await ctx.db
        .select()
        .from(pushDeliveries)
        // By (producer, eventId), the index's order: an eventId is unique per producer only.
        .where(or(...events.map((e) => and(eq(pushDeliveries.producer, e.producer), eq(pushDeliveries.eventId, e.eventId)))))
        .orderBy(asc(pushDeliveries.createdAt), asc(pushDeliveries.subscriptionId))
    : [];
  return {
    events: events.map((e) => ({
      producer: e.producer,
      eventId: e.eventId,
      userId: e.userId,
      notificationId: e.notificationId,
      createdAt: e.createdAt,
      deliveries: deliveries
        .filter((d) => d.producer === e.producer && d.eventId === e.eventId)
        .map((d) => ({
          subscriptionId: d.subscriptionId,
          status: d.status,
          attempts: d.attempts,
          lastStatusCode: d.lastStatusCode,
          lastError: d.lastError,
          nextAttemptAt: d.nextAttemptAt,
          sentAt: d.sentAt,
        })),
    })),
  };
}
