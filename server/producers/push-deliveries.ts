// The push deliveries of a producer's batch (docs/api.md#durable-push-delivery): each one's declarative payload
// (server/push/payload.ts) with its receipt and the user's badge, and topic collapse within the batch and
// against what is still queued (server/push/collapse.ts). Runs inside ingest's transaction.
import { randomUUID } from "node:crypto";
import { inArray, sql } from "drizzle-orm";
import { textArray } from "../../db/arrays.js";
import type { Db } from "../../db/client.js";
import { notificationCounts, pushDeliveries } from "../../db/schema/index.js";
import { supersededInBatch, supersedeQueued } from "../push/collapse.js";
import { buildPushPayload, fitPayload, type PayloadLinks } from "../push/payload.js";
import { RECEIPT_TOKEN_LENGTH, type ReceiptTokens } from "../push/receipt-token.js";

/** What ingest needs to make pushes: null when push is off (no VAPID keys). */
export type IngestPush = {
  links: PayloadLinks;
  tokens: ReceiptTokens;
  /** How long a receipt is taken: the push's TTL and then some days for a click on a notification left open. */
  receiptSeconds: number;
};

/** A week after the push's TTL ends: a notification left on screen is still clicked days later. */
export const RECEIPT_GRACE_SECONDS = 7 * 24 * 60 * 60;

/** An event's push body, cut to fit (payload.ts), or why it cannot fit: that event is rejected, the others go on. */
export function fitEventPush(
  event: { title: string; body?: string | null; url?: string | null },
  push: IngestPush,
): { body: string | null } | { error: string } {
  const fitted = fitPayload({ title: event.title, body: event.body ?? null, url: event.url ?? null }, push.links, RECEIPT_TOKEN_LENGTH);
  return "tooLarge" in fitted ? { error: `push: ${fitted.tooLarge}` } : { body: fitted.body };
}

export type PushOf = {
  producer: string;
  eventId: string;
  userId: string;
  notificationId: string | null;
  title: string;
  /** Already fitted (fitEventPush). */
  body: string | null;
  url: string | null;
  urgency: string;
  topic: string | null;
  subscriptionIds: string[];
};

/**
 * Writes the deliveries of these events, in batch order, after their notifications were inserted (so the
 * unread counts include them). Answers how many were written, how many of them are queued, and how many
 * deliveries were superseded, of this batch or earlier ones.
 */
export async function writeDeliveries(
  tx: Db,
  events: readonly PushOf[],
  push: IngestPush,
): Promise<{ written: number; queued: number; superseded: number }> {
  const wanted = events.filter((e) => e.subscriptionIds.length);
  if (!wanted.length) return { written: 0, queued: 0, superseded: 0 };
  const badges = await badgesAfter(tx, events);
  const expiresAt = new Date(Date.now() + push.receiptSeconds * 1000);
  const rows = wanted.flatMap((e) =>
    e.subscriptionIds.map((subscriptionId) => {
      const id = randomUUID();
      const receipt = push.tokens.sign(id, expiresAt);
      const payload = buildPushPayload(
        { title: e.title, body: e.body, url: e.url, notificationId: e.notificationId, receipt, appBadge: badges.get(e) ?? null },
        push.links,
      );
      return { id, producer: e.producer, eventId: e.eventId, subscriptionId, payload, urgency: e.urgency, topic: e.topic };
    }),
  );
  const collapsedHere = supersededInBatch(rows);
  // Before the insert, so the new rows themselves are never among the superseded.
  const supersededEarlier = await supersedeQueued(tx, rows);
  const column = (of: (row: (typeof rows)[number], index: number) => string | null) => textArray(rows.map(of));
  await tx.execute(sql`
    insert into ${pushDeliveries} (id, producer, event_id, subscription_id, payload, urgency, topic, status)
    select d.id::uuid, d.producer, d.event_id, d.subscription_id::uuid, d.payload::jsonb, d.urgency, d.topic, d.status
    from unnest(${column((r) => r.id)}, ${column((r) => r.producer)}, ${column((r) => r.eventId)}, ${column((r) => r.subscriptionId)},
                ${column((r) => JSON.stringify(r.payload))}, ${column((r) => r.urgency)}, ${column((r) => r.topic)},
                ${column((_r, i) => (collapsedHere.has(i) ? "superseded" : "queued"))})
         as d(id, producer, event_id, subscription_id, payload, urgency, topic, status)`);
  return { written: rows.length, queued: rows.length - collapsedHere.size, superseded: supersededEarlier.length + collapsedHere.size };
}

/**
 * Each event's app badge: its user's unread count once this event's notification (if any) is in, so a batch
 * of three for one user badges 1, 2, 3 over an empty inbox, not 3, 3, 3.
 */
async function badgesAfter(tx: Db, events: readonly PushOf[]): Promise<Map<PushOf, number>> {
  const userIds = [...new Set(events.map((e) => e.userId))];
  const counts = await tx
    .select({ userId: notificationCounts.userId, unread: sql<number>`sum(${notificationCounts.unread})::int` })
    .from(notificationCounts)
    .where(inArray(notificationCounts.userId, userIds))
    .groupBy(notificationCounts.userId);
  const after = new Map(counts.map((c) => [c.userId, c.unread]));
  const laterInApp = new Map<string, number>();
  for (const e of events) if (e.notificationId) laterInApp.set(e.userId, (laterInApp.get(e.userId) ?? 0) + 1);
  const badges = new Map<PushOf, number>();
  const seen = new Map<string, number>();
  for (const e of events) {
    if (e.notificationId) seen.set(e.userId, (seen.get(e.userId) ?? 0) + 1);
    const before = (after.get(e.userId) ?? 0) - (laterInApp.get(e.userId) ?? 0);
    badges.set(e, Math.max(0, before + (seen.get(e.userId) ?? 0)));
  }
  return badges;
}
