// Producers' recent events and what became of their pushes, for operators (the console's Deliveries view).
import { and, asc, desc, eq, or, type SQL, sql } from "drizzle-orm";
import { notificationEvents, pushDeliveries, users } from "../../db/schema/index.js";
import type { HandlerArgs } from "../context.js";
import { funnelOf, producerFunnels } from "../push/funnel.js";
import type { RecentEventsInput } from "./delivery-schemas.js";

export async function recentEvents({ ctx, input }: HandlerArgs<RecentEventsInput>) {
  const where: SQL[] = [];
  if (input.producer) where.push(eq(notificationEvents.producer, input.producer));
  if (input.userId) where.push(eq(notificationEvents.userId, input.userId));
  // An email names at most one user (stored lower-case, unique): its id, looked up once inside the statement,
  // so the user's events are still read through notification_events_user_idx.
  if (input.userEmail)
    where.push(
      eq(notificationEvents.userId, sql`(select ${users.id} from ${users} where ${users.email} = ${input.userEmail.trim().toLowerCase()})`),
    );
  const events = await ctx.db
    .select({ event: notificationEvents, userEmail: users.email, userName: users.name })
    .from(notificationEvents)
    // Every event has its user (removed with them): the join only brings their email and name.
    .innerJoin(users, eq(users.id, notificationEvents.userId))
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(notificationEvents.createdAt), desc(notificationEvents.eventId))
    .limit(input.limit ?? 50);
  const deliveries = events.length
    ? await ctx.db
        .select()
        .from(pushDeliveries)
        // By (producer, eventId), the index's order: an eventId is unique per producer only.
        .where(or(...events.map(({ event: e }) => and(eq(pushDeliveries.producer, e.producer), eq(pushDeliveries.eventId, e.eventId)))))
        .orderBy(asc(pushDeliveries.createdAt), asc(pushDeliveries.subscriptionId))
    : [];
  const ofEvent = (e: (typeof events)[number]["event"]) => deliveries.filter((d) => d.producer === e.producer && d.eventId === e.eventId);
  return {
    producers: producerFunnels(deliveries),
    events: events.map(({ event: e, userEmail, userName }) => ({
      producer: e.producer,
      eventId: e.eventId,
      userId: e.userId,
      userEmail,
      userName,
      notificationId: e.notificationId,
      createdAt: e.createdAt,
      noPush: e.noPush,
      funnel: funnelOf(ofEvent(e)),
      deliveries: ofEvent(e).map((d) => ({
        subscriptionId: d.subscriptionId,
        status: d.status,
        attempts: d.attempts,
        lastStatusCode: d.lastStatusCode,
        lastError: d.lastError,
        nextAttemptAt: d.nextAttemptAt,
        sentAt: d.sentAt,
        topic: d.topic,
        displayedAt: d.displayedAt,
        clickedAt: d.clickedAt,
      })),
    })),
  };
}
