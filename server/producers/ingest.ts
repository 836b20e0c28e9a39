// Taking a producer's batch of events (docs/api.md#sending-notifications-from-a-service): each event is
// checked on its own and honours its user's preferences; the batch is one transaction whatever its size
// (one insert each for events, notifications and push deliveries), so 100 events for 100 users are one
// commit and one round of NOTIFYs. Deliveries are sent after commit by the queue (server/push/delivery-queue.ts).
import { randomUUID } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { type Category, categoryOf } from "../../db/categories.js";
import type { Db } from "../../db/client.js";
import {
  notificationEvents,
  notificationPreferences,
  notifications,
  pushDeliveries,
  pushSubscriptions,
  users,
} from "../../db/schema/index.js";
import { urgencyOf } from "../push/retry.js";
import { type EventResult, type ProducerEvent, producerEvent } from "./schemas.js";

type Checked = { index: number; event: ProducerEvent; category: Category };

/** The first problem zod found, as `field: message`. */
function rejection(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const issue = issues[0]!;
  return issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

const eventIdOf = (raw: unknown): string | null => {
  const id = (raw as { eventId?: unknown } | null)?.eventId;
  return typeof id === "string" && /^[\x21-\x7E]{1,255}$/.test(id) ? id : null;
};

/**
 * The results of one batch, in order. `pushEnabled` false (no VAPID keys) queues no delivery. Returns
 * whether any delivery was queued, for the caller to wake the queue after commit.
 */
export async function ingestEvents(
  db: Db,
  producer: string,
  batch: readonly unknown[],
  pushEnabled: boolean,
): Promise<{ results: EventResult[]; queued: number }> {
  const results: EventResult[] = batch.map((raw) => ({ eventId: eventIdOf(raw), status: "rejected", notificationId: null, push: 0 }));
  const checked: Checked[] = [];
  batch.forEach((raw, index) => {
    const parsed = producerEvent.safeParse(raw);
    if (!parsed.success) results[index]!.error = rejection(parsed.error.issues);
    else checked.push({ index, event: parsed.data, category: categoryOf(parsed.data.type) });
  });
  if (!checked.length) return { results, queued: 0 };

  let queued = 0;
  await db.transaction(async (tx) => {
    const userIds = [...new Set(checked.map((c) => c.event.userId))];
    const eventIds = [...new Set(checked.map((c) => c.event.eventId))];
    const [known, preferences, subscriptions, earlier] = await Promise.all([
      tx.select({ id: users.id }).from(users).where(inArray(users.id, userIds)),
      tx.select().from(notificationPreferences).where(inArray(notificationPreferences.userId, userIds)),
      pushEnabled
        ? tx
            .select({ id: pushSubscriptions.id, userId: pushSubscriptions.userId })
            .from(pushSubscriptions)
            .where(and(inArray(pushSubscriptions.userId, userIds), eq(pushSubscriptions.isActive, true)))
        : Promise.resolve([]),
      tx
        .select({ eventId: notificationEvents.eventId, notificationId: notificationEvents.notificationId })
        .from(notificationEvents)
        .where(and(eq(notificationEvents.producer, producer), inArray(notificationEvents.eventId, eventIds))),
    ]);
    const knownUsers = new Set(known.map((u) => u.id));
    const choice = new Map(preferences.map((p) => [`${p.userId}|${p.category}`, p]));
    const subscriptionsOf = new Map<string, { id: string }[]>();
    for (const s of subscriptions) subscriptionsOf.set(s.userId, [...(subscriptionsOf.get(s.userId) ?? []), s]);
    /** The notification each eventId made, for its duplicates: earlier batches', then this batch's. */
    const made = new Map(earlier.map((e) => [e.eventId, e.notificationId]));

    const claims: { index: number; event: ProducerEvent; category: Category; notificationId: string | null; push: boolean }[] = [];
    for (const { index, event, category } of checked) {
      const result = results[index]!;
      if (made.has(event.eventId)) {
        Object.assign(result, { status: "duplicate", notificationId: made.get(event.eventId) ?? null });
        continue;
      }
      if (!knownUsers.has(event.userId)) {
        result.error = "userId: no such user";
        continue;
      }
      const chosen = choice.get(`${event.userId}|${category}`) ?? { inApp: true, push: true };
      if (!chosen.inApp && !chosen.push) {
        result.status = "suppressed";
        continue;
      }
      const notificationId = chosen.inApp ? randomUUID() : null;
      made.set(event.eventId, notificationId);
      claims.push({ index, event, category, notificationId, push: chosen.push });
    }
    if (!claims.length) return;

    // A concurrent batch may have claimed an eventId since it was read: only what this insert claims counts.
    const claimed = new Set(
      (
        await tx
          .insert(notificationEvents)
          .values(claims.map((c) => ({ producer, eventId: c.event.eventId, userId: c.event.userId, notificationId: c.notificationId })))
          .onConflictDoNothing()
          .returning({ eventId: notificationEvents.eventId })
      ).map((row) => row.eventId),
    );
    const lost = claims.filter((c) => !claimed.has(c.event.eventId));
    if (lost.length) {
      const firsts = await tx
        .select({ eventId: notificationEvents.eventId, notificationId: notificationEvents.notificationId })
        .from(notificationEvents)
        .where(
          and(
            eq(notificationEvents.producer, producer),
            inArray(
              notificationEvents.eventId,
              lost.map((c) => c.event.eventId),
            ),
          ),
        );
      const first = new Map(firsts.map((f) => [f.eventId, f.notificationId]));
      for (const c of lost) Object.assign(results[c.index]!, { status: "duplicate", notificationId: first.get(c.event.eventId) ?? null });
    }
    const won = claims.filter((c) => claimed.has(c.event.eventId));
    const inApp = won.filter((c) => c.notificationId);
    if (inApp.length) {
      await tx.insert(notifications).values(
        inApp.map(({ event, category, notificationId }) => ({
          id: notificationId!,
          userId: event.userId,
          eventType: event.type,
          category,
          title: event.title,
          body: event.body ?? null,
          data: event.url || event.data ? { ...event.data, ...(event.url ? { url: event.url } : {}) } : null,
        })),
      );
    }
    const deliveries = won.flatMap((c) =>
      c.push
        ? (subscriptionsOf.get(c.event.userId) ?? []).map((s) => ({
            producer,
            eventId: c.event.eventId,
            subscriptionId: s.id,
            payload: { title: c.event.title, body: c.event.body ?? null, url: c.event.url ?? null },
            urgency: urgencyOf(c.category),
          }))
        : [],
    );
    if (deliveries.length) await tx.insert(pushDeliveries).values(deliveries);
    queued = deliveries.length;
    for (const c of won) {
      Object.assign(results[c.index]!, {
        status: "created",
        notificationId: c.notificationId,
        push: c.push ? (subscriptionsOf.get(c.event.userId)?.length ?? 0) : 0,
      });
    }
  });
  return { results, queued };
}
