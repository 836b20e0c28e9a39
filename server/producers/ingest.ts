// Taking a producer's batch of events (docs/producers.md#sending-notifications-from-a-service): each event is
// checked on its own and honours its user's preferences; the batch is one transaction whatever its size
// (one insert each for events, notifications and push deliveries), so 100 events for 100 users are one
// commit and one round of NOTIFYs. Deliveries are sent after commit by the queue (server/push/delivery-queue.ts).
import { randomUUID } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { rowsOf, textArray } from "../../db/arrays.js";
import { type Category, categoryOf } from "../../db/categories.js";
import type { Db } from "../../db/client.js";
import { notificationEvents, notificationPreferences, notifications, pushSubscriptions, users } from "../../db/schema/index.js";
import { countPushStage } from "../observability/metrics.js";
import { urgencyOf } from "../push/retry.js";
import { type NoPush, noPushReason } from "./no-push.js";
import { fitEventPush, type IngestPush, writeDeliveries } from "./push-deliveries.js";
import { type EventResult, type ProducerEvent, producerEvent } from "./schemas.js";

/** `pushBody`: the body its push carries, cut to fit 4096 bytes encrypted (push-deliveries.ts). */
type Checked = { index: number; event: ProducerEvent; category: Category; pushBody: string | null };

/** The first problem zod found, as `field: message`. */
function rejection(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const issue = issues[0]!;
  return issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

/** The notification's data: the event's object with its url, as JSON text; null when it has neither. */
const dataOf = (event: ProducerEvent): string | null =>
  event.url || event.data ? JSON.stringify({ ...event.data, ...(event.url ? { url: event.url } : {}) }) : null;

const eventIdOf = (raw: unknown): string | null => {
  const id = (raw as { eventId?: unknown } | null)?.eventId;
  return typeof id === "string" && /^[\x21-\x7E]{1,255}$/.test(id) ? id : null;
};

/**
 * The results of one batch, in order. `push` null (no VAPID keys) queues no delivery. Also returns
 * how many deliveries were queued, for the caller to wake the queue after commit, and the users given a
 * notification, whose unread counts changed.
 */
export async function ingestEvents(
  db: Db,
  producer: string,
  batch: readonly unknown[],
  push: IngestPush | null,
): Promise<{ results: EventResult[]; queued: number; notified: string[] }> {
  const pushEnabled = push !== null;
  const results: EventResult[] = batch.map((raw) => ({ eventId: eventIdOf(raw), status: "rejected", notificationId: null, push: 0 }));
  const checked: Checked[] = [];
  batch.forEach((raw, index) => {
    const parsed = producerEvent.safeParse(raw);
    if (!parsed.success) {
      results[index]!.error = rejection(parsed.error.issues);
      return;
    }
    // Checked whoever the user is, so a producer learns of a push too large at its first send, not a user's.
    const fitted = push ? fitEventPush(parsed.data, push) : { body: null };
    if ("error" in fitted) results[index]!.error = fitted.error;
    else checked.push({ index, event: parsed.data, category: categoryOf(parsed.data.type), pushBody: fitted.body });
  });
  if (!checked.length) return { results, queued: 0, notified: [] };

  let queued = 0;
  let superseded = 0;
  let written = 0;
  let notified: string[] = [];
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

    const claims: {
      index: number;
      event: ProducerEvent;
      pushBody: string | null;
      category: Category;
      notificationId: string | null;
      push: boolean;
      noPush: NoPush | null;
    }[] = [];
    for (const { index, event, category, pushBody } of checked) {
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
      const noPush = noPushReason(chosen.push, pushEnabled, subscriptionsOf.get(event.userId)?.length ?? 0);
      claims.push({ index, event, pushBody, category, notificationId, push: chosen.push, noPush });
    }
    if (!claims.length) return;

    // A concurrent batch may have claimed an eventId since it was read: only what this insert claims counts.
    // Each column travels as one array parameter (db/arrays.ts): a batch of 100 is 4 parameters, not 400.
    // Claimed in eventId order, whatever the batch's: two batches with the same eventIds in opposite orders
    // would each hold one the other waits for (a deadlock); in one order, the later one waits holding none.
    const inOrder = [...claims].sort((a, b) => (a.event.eventId < b.event.eventId ? -1 : a.event.eventId > b.event.eventId ? 1 : 0));
    const claimed = new Set(
      rowsOf<{ event_id: string }>(
        await tx.execute(sql`
          insert into ${notificationEvents} (producer, event_id, user_id, notification_id, no_push)
          select ${producer}::text, e.event_id, e.user_id, e.notification_id::uuid, e.no_push
          from unnest(${textArray(inOrder.map((c) => c.event.eventId))}, ${textArray(inOrder.map((c) => c.event.userId))},
                      ${textArray(inOrder.map((c) => c.notificationId))}, ${textArray(inOrder.map((c) => c.noPush))})
               as e(event_id, user_id, notification_id, no_push)
          on conflict do nothing
          returning event_id`),
      ).map((row) => row.event_id),
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
    notified = [...new Set(inApp.map((c) => c.event.userId))];
    if (inApp.length) {
      const column = <T extends string | null>(of: (c: (typeof inApp)[number]) => T) => textArray(inApp.map(of));
      await tx.execute(sql`
        insert into ${notifications} (id, user_id, event_type, category, title, body, data)
        select n.id::uuid, n.user_id, n.event_type, n.category, n.title, n.body, n.data::jsonb
        from unnest(${column((c) => c.notificationId)}, ${column((c) => c.event.userId)}, ${column((c) => c.event.type)},
                    ${column((c) => c.category)}, ${column((c) => c.event.title)}, ${column((c) => c.event.body ?? null)},
                    ${column((c) => dataOf(c.event))}) as n(id, user_id, event_type, category, title, body, data)`);
    }
    if (push) {
      const made = await writeDeliveries(
        tx,
        won.map((c) => ({
          producer,
          eventId: c.event.eventId,
          userId: c.event.userId,
          notificationId: c.notificationId,
          title: c.event.title,
          body: c.pushBody,
          url: c.event.url ?? null,
          urgency: urgencyOf(c.category),
          topic: c.event.topic ?? null,
          subscriptionIds: c.push ? (subscriptionsOf.get(c.event.userId) ?? []).map((s) => s.id) : [],
        })),
        push,
      );
      ({ queued, superseded, written } = made);
    }
    for (const c of won) {
      Object.assign(results[c.index]!, {
        status: "created",
        notificationId: c.notificationId,
        push: c.push ? (subscriptionsOf.get(c.event.userId)?.length ?? 0) : 0,
      });
    }
  });
  // After commit: a rolled-back batch queued nothing. Each delivery written counts as queued once.
  countPushStage("queued", written);
  countPushStage("superseded", superseded);
  return { results, queued, notified };
}
