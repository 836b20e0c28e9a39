// The floor's twin of the producer API (POST /api/notifications/events, server/producers/routes.ts and
// ingest.ts): the same checks, reads and rows, by hand in one transaction.
import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type postgres from "postgres";
import { categoryOf } from "../db/categories.js";
import { MAX_BODY_LENGTH, MAX_TITLE_LENGTH, MAX_TYPE_LENGTH, MAX_URL_LENGTH } from "../server/notifications/limits.js";
import { urgencyOf } from "../server/push/retry.js";

/**
 * A producer's batch (server/producers/ingest.ts) by hand, inside one transaction: the four reads the
 * product makes (users, preferences, active subscriptions, this producer's earlier events), then one
 * multi-row INSERT each for the events, the notifications and the push deliveries (unnest of one array
 * per column: the statement text is the same whatever the batch's size, so it is prepared once).
 */
export const FLOOR_INGEST_SQL = {
  users: `select id from users where id = any($1::text[])`,
  preferences: `select user_id, category, in_app, push from notification_preferences where user_id = any($1::text[])`,
  subscriptions: `select id, user_id from push_subscriptions where user_id = any($1::text[]) and is_active`,
  earlier: `select event_id, notification_id from notification_events where producer = $1 and event_id = any($2::text[])`,
  events: `insert into notification_events (producer, event_id, user_id, notification_id)
           select $1, e, u, n from unnest($2::text[], $3::text[], $4::uuid[]) as t(e, u, n)
           on conflict do nothing returning event_id`,
  notifications: `insert into notifications (id, user_id, event_type, category, title, body, data)
                  select i, u, t, c, ti, b, d::jsonb from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                    as x(i, u, t, c, ti, b, d)`,
  deliveries: `insert into push_deliveries (producer, event_id, subscription_id, payload, urgency)
               select $1, e, s, p::jsonb, u from unnest($2::text[], $3::uuid[], $4::text[], $5::text[]) as x(e, s, p, u)`,
};

/** `($1, $2), ($3, $4)…`: a VALUES list with a parameter per row and column. */
function valuesList(rows: readonly unknown[][]): string {
  let n = 0;
  return rows.map((row) => `(${row.map(() => `$${++n}`).join(", ")})`).join(", ");
}

/** One event of a producer's batch, as the floor checks it: the same fields and limits, written inline. */
type FloorEvent = {
  eventId: string;
  userId: string;
  type: string;
  title: string;
  body: string | null;
  url: string | null;
  data: Record<string, unknown> | null;
};
type FloorEventResult = {
  eventId: string | null;
  status: "created" | "duplicate" | "suppressed" | "rejected";
  notificationId: string | null;
  push: number;
  error?: string;
};

const EVENT_ID = /^[\x21-\x7E]{1,255}$/;
const EVENT_FIELDS = new Set(["eventId", "userId", "type", "title", "body", "url", "data"]);
const text = (v: unknown, max: number) => typeof v === "string" && v.length <= max && !v.includes("\u0000");
const filled = (v: unknown, max: number) => text(v, max) && (v as string).trim() !== "";

function floorEvent(raw: unknown): FloorEvent | string {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return "not an object";
  const e = raw as Record<string, unknown>;
  for (const key of Object.keys(e)) if (!EVENT_FIELDS.has(key)) return `${key}: unknown field`;
  if (typeof e.eventId !== "string" || !EVENT_ID.test(e.eventId)) return "eventId: invalid";
  if (!filled(e.userId, 200)) return "userId: invalid";
  if (!filled(e.type, MAX_TYPE_LENGTH)) return "type: invalid";
  if (!filled(e.title, MAX_TITLE_LENGTH)) return "title: invalid";
  if (e.body != null && !text(e.body, MAX_BODY_LENGTH)) return "body: invalid";
  if (e.url != null && !text(e.url, MAX_URL_LENGTH)) return "url: invalid";
  if (e.data != null && (typeof e.data !== "object" || Array.isArray(e.data) || JSON.stringify(e.data).length > 4096))
    return "data: invalid";
  return {
    eventId: e.eventId,
    userId: e.userId as string,
    type: e.type as string,
    title: e.title as string,
    body: (e.body as string | null | undefined) ?? null,
    url: (e.url as string | null | undefined) ?? null,
    data: (e.data as Record<string, unknown> | null | undefined) ?? null,
  };
}

/** The route's handler; `producerOf` answers 401 or 403 itself and returns null when the key may not send. */
export function floorIngest(sql: postgres.Sql, producerOf: (request: FastifyRequest, reply: FastifyReply) => Promise<string | null>) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const producer = await producerOf(request, reply);
    if (!producer) return reply;
    const events = (request.body as { events?: unknown } | null)?.events;
    if (!Array.isArray(events) || events.length < 1 || events.length > 100) return reply.status(400).send({ error: "events: 1 to 100" });
    const results: FloorEventResult[] = events.map((raw) => {
      const id = (raw as { eventId?: unknown } | null)?.eventId;
      return { eventId: typeof id === "string" && EVENT_ID.test(id) ? id : null, status: "rejected", notificationId: null, push: 0 };
    });
    const checked: { index: number; event: FloorEvent; category: string }[] = [];
    events.forEach((raw, index) => {
      const event = floorEvent(raw);
      if (typeof event === "string") results[index]!.error = event;
      else checked.push({ index, event, category: categoryOf(event.type) });
    });
    if (!checked.length) return { results };

    const q = FLOOR_INGEST_SQL;
    // `?insert=values`: the three inserts as VALUES lists, a parameter per row and column (as Drizzle's
    // `.values(rows)` sends them), for comparison with the arrays.
    const byValues = (request.query as { insert?: string }).insert === "values";
    await sql.begin(async (tx) => {
      const exec = <T extends object>(text: string, params: unknown[]) => tx.unsafe<T[]>(text, params as never[], { prepare: true });
      const userIds = [...new Set(checked.map((c) => c.event.userId))];
      const eventIds = [...new Set(checked.map((c) => c.event.eventId))];
      const [known, preferences, subscriptions, earlier] = await Promise.all([
        exec<{ id: string }>(q.users, [userIds]),
        exec<{ user_id: string; category: string; in_app: boolean; push: boolean }>(q.preferences, [userIds]),
        exec<{ id: string; user_id: string }>(q.subscriptions, [userIds]),
        exec<{ event_id: string; notification_id: string | null }>(q.earlier, [producer, eventIds]),
      ]);
      const knownUsers = new Set(known.map((u) => u.id));
      const choice = new Map(preferences.map((p) => [`${p.user_id}|${p.category}`, p]));
      const subscriptionsOf = new Map<string, string[]>();
      for (const s of subscriptions) subscriptionsOf.set(s.user_id, [...(subscriptionsOf.get(s.user_id) ?? []), s.id]);
      const made = new Map(earlier.map((e) => [e.event_id, e.notification_id]));

      const claims: { index: number; event: FloorEvent; category: string; notificationId: string | null; push: boolean }[] = [];
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
        const chosen = choice.get(`${event.userId}|${category}`);
        const inApp = chosen?.in_app ?? true;
        const push = chosen?.push ?? true;
        if (!inApp && !push) {
          result.status = "suppressed";
          continue;
        }
        const notificationId = inApp ? randomUUID() : null;
        made.set(event.eventId, notificationId);
        claims.push({ index, event, category, notificationId, push });
      }
      if (!claims.length) return;

      const claimRows = claims.map((c) => [producer, c.event.eventId, c.event.userId, c.notificationId]);
      const claimedRows = byValues
        ? await exec<{ event_id: string }>(
            `insert into notification_events (producer, event_id, user_id, notification_id) values ${valuesList(claimRows)}
             on conflict do nothing returning event_id`,
            claimRows.flat(),
          )
        : await exec<{ event_id: string }>(q.events, [
            producer,
            claims.map((c) => c.event.eventId),
            claims.map((c) => c.event.userId),
            claims.map((c) => c.notificationId),
          ]);
      const claimed = new Set(claimedRows.map((r) => r.event_id));
      const lost = claims.filter((c) => !claimed.has(c.event.eventId));
      if (lost.length) {
        const firsts = await exec<{ event_id: string; notification_id: string | null }>(q.earlier, [
          producer,
          lost.map((c) => c.event.eventId),
        ]);
        const first = new Map(firsts.map((f) => [f.event_id, f.notification_id]));
        for (const c of lost) Object.assign(results[c.index]!, { status: "duplicate", notificationId: first.get(c.event.eventId) ?? null });
      }
      const won = claims.filter((c) => claimed.has(c.event.eventId));
      const inApp = won.filter((c) => c.notificationId);
      const dataOf = (event: FloorEvent) => (event.url || event.data ? { ...event.data, ...(event.url ? { url: event.url } : {}) } : null);
      if (inApp.length && byValues) {
        const rows = inApp.map(({ event, category, notificationId }) => [
          notificationId,
          event.userId,
          event.type,
          category,
          event.title,
          event.body,
          dataOf(event),
        ]);
        await exec(
          `insert into notifications (id, user_id, event_type, category, title, body, data) values ${valuesList(rows)}`,
          rows.flat(),
        );
      } else if (inApp.length) {
        await exec(q.notifications, [
          inApp.map((c) => c.notificationId),
          inApp.map((c) => c.event.userId),
          inApp.map((c) => c.event.type),
          inApp.map((c) => c.category),
          inApp.map((c) => c.event.title),
          inApp.map((c) => c.event.body),
          inApp.map(({ event }) => {
            const data = dataOf(event);
            return data ? JSON.stringify(data) : null;
          }),
        ]);
      }
      const deliveries = won.flatMap((c) =>
        c.push
          ? (subscriptionsOf.get(c.event.userId) ?? []).map((subscriptionId) => ({
              eventId: c.event.eventId,
              subscriptionId,
              payload: JSON.stringify({ title: c.event.title, body: c.event.body, url: c.event.url }),
              urgency: urgencyOf(c.category),
            }))
          : [],
      );
      if (deliveries.length && byValues) {
        const rows = deliveries.map((d) => [producer, d.eventId, d.subscriptionId, JSON.parse(d.payload) as object, d.urgency]);
        await exec(
          `insert into push_deliveries (producer, event_id, subscription_id, payload, urgency) values ${valuesList(rows)}`,
          rows.flat(),
        );
      } else if (deliveries.length) {
        await exec(q.deliveries, [
          producer,
          deliveries.map((d) => d.eventId),
          deliveries.map((d) => d.subscriptionId),
          deliveries.map((d) => d.payload),
          deliveries.map((d) => d.urgency),
        ]);
      }
      for (const c of won) {
        Object.assign(results[c.index]!, {
          status: "created",
          notificationId: c.notificationId,
          push: c.push ? (subscriptionsOf.get(c.event.userId)?.length ?? 0) : 0,
        });
      }
    });
    return { results };
  };
}
