// The caller's push subscriptions: list the active ones, register (upsert by endpoint, at most
// PUSH_SUBSCRIPTIONS_PER_USER active), deactivate.
import { and, asc, desc, eq, inArray, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { pushSubscriptions } from "../../db/schema/index.js";
import { auditSource, recordAudit } from "../audit/record.js";
import type { HandlerArgs } from "../context.js";
import { validationError } from "../errors/errors.js";
import type { SubscribeInput, UnsubscribeInput } from "./schemas.js";

export type PushSubscription = typeof pushSubscriptions.$inferSelect;

/** Longer user-agent headers are cut: the value is only shown to people, never parsed. */
const MAX_USER_AGENT = 512;

export async function listSubscriptions({ ctx }: HandlerArgs): Promise<{ subscriptions: PushSubscription[] }> {
  const subscriptions = await ctx.db
    .select()
    .from(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, ctx.user.id), eq(pushSubscriptions.isActive, true)))
    .orderBy(asc(pushSubscriptions.createdAt), asc(pushSubscriptions.id));
  return { subscriptions };
}

/** PUSH_SUBSCRIPTIONS_PER_USER's default (CONTRACT part four). */
export const DEFAULT_SUBSCRIPTIONS_PER_USER = 20;

/**
 * One upsert, so two browsers racing with the same endpoint cannot both insert. An endpoint names one
 * browser subscription: when it comes back (re-subscribed, or signed in as another user) the row takes
 * the new keys and owner and becomes active again. Past the user's cap the least recently updated of their
 * other active subscriptions are deactivated, in the same transaction: one event never fans out to more.
 */
export async function subscribe({ ctx, input }: HandlerArgs<SubscribeInput>): Promise<{ subscription: PushSubscription }> {
  const problem = await ctx.push.endpointProblem(input.endpoint);
  if (problem) throw validationError("Invalid push subscription", [{ field: "endpoint", message: problem }]);
  const values = {
    userId: ctx.user.id,
    endpoint: input.endpoint,
    p256dh: input.p256dh,
    auth: input.auth,
    userAgent: ctx.userAgent ? ctx.userAgent.slice(0, MAX_USER_AGENT) : null,
    isActive: true,
  };
  const cap = ctx.pushSubscriptionsPerUser ?? DEFAULT_SUBSCRIPTIONS_PER_USER;
  return ctx.db.transaction(async (tx) => {
    // One subscribe per user at a time: without it two concurrent ones each count the other's row as absent
    // and the user ends up one over. A lock of its own, so nothing else that touches the user waits on it.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`push_subscriptions:${ctx.user.id}`}, 0))`);
    const subscription = await upsertSubscription(tx, values);
    const overCap = tx
      .select({ id: pushSubscriptions.id })
      .from(pushSubscriptions)
      .where(
        and(eq(pushSubscriptions.userId, ctx.user.id), eq(pushSubscriptions.isActive, true), ne(pushSubscriptions.id, subscription.id)),
      )
      .orderBy(desc(pushSubscriptions.updatedAt), desc(pushSubscriptions.id))
      .offset(cap - 1);
    await tx.update(pushSubscriptions).set({ isActive: false, updatedAt: sql`now()` }).where(inArray(pushSubscriptions.id, overCap));
    return { subscription };
  });
}

async function upsertSubscription(db: Db, values: typeof pushSubscriptions.$inferInsert): Promise<PushSubscription> {
  const [subscription] = await db
    .insert(pushSubscriptions)
    .values(values)
    .onConflictDoUpdate({
      target: pushSubscriptions.endpoint,
      set: {
        userId: values.userId,
        p256dh: values.p256dh,
        auth: values.auth,
        userAgent: values.userAgent,
        isActive: true,
        updatedAt: sql`now()`,
      },
    })
    .returning();
  return subscription!;
}

/** Idempotent: an endpoint the caller has no active subscription for changes nothing and still succeeds. */
export async function unsubscribe({ ctx, input }: HandlerArgs<UnsubscribeInput>): Promise<{ success: true }> {
  await ctx.db
    .update(pushSubscriptions)
    .set({ isActive: false, updatedAt: sql`now()` })
    .where(
      and(eq(pushSubscriptions.userId, ctx.user.id), eq(pushSubscriptions.isActive, true), eq(pushSubscriptions.endpoint, input.endpoint)),
    );
  return { success: true };
}

/**
 * The admin test endpoint clears the caller's own subscriptions, not everyone's; the audit event lists the
 * ids it deactivated.
 */
export async function deactivateOwnSubscriptions({ ctx }: HandlerArgs): Promise<{ success: true }> {
  return ctx.db.transaction(async (tx) => {
    const cleared = await tx
      .update(pushSubscriptions)
      .set({ isActive: false, updatedAt: sql`now()` })
      .where(and(eq(pushSubscriptions.userId, ctx.user.id), eq(pushSubscriptions.isActive, true)))
      .returning({ id: pushSubscriptions.id });
    await recordAudit(tx, auditSource(ctx), {
      action: "subscriptions.clear",
      target: { type: "user", id: ctx.user.id },
      before: { activeSubscriptionIds: cleared.map((s) => s.id) },
      after: { activeSubscriptionIds: [] },
    });
    return { success: true };
  });
}
