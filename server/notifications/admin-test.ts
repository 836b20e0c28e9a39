// Admin test endpoints: create an in-app notification or send a push to any user, inspect and clear
// push subscriptions. The target user must exist (404 `User <id> not found`).
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { categoryOf } from "../../db/categories.js";
import type { Db } from "../../db/client.js";
import { notifications, pushSubscriptions, users } from "../../db/schema/index.js";
import { auditSource, recordAudit } from "../audit/record.js";
import type { HandlerArgs } from "../context.js";
import { notFound, VapidNotConfiguredError } from "../errors/errors.js";
import { pushTargetColumns } from "../push/sender.js";
import { testPushPayload } from "../push/test-payload.js";
import type { TestNotificationInput } from "./schemas.js";
import type { PushSubscription } from "./subscriptions.js";
import { type NotificationView, toNotificationView } from "./view.js";

async function requireUser(db: Db, id: string): Promise<void> {
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, id));
  if (!user) throw notFound("User", id);
}

export async function createTestNotification({
  ctx,
  input,
}: HandlerArgs<TestNotificationInput>): Promise<{ notification: NotificationView }> {
  await requireUser(ctx.db, input.targetUserId);
  const created = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(notifications)
      .values({
        userId: input.targetUserId,
        eventType: input.type,
        category: categoryOf(input.type),
        title: input.title,
        body: input.body,
        data: input.url ? { url: input.url } : null,
      })
      .returning();
    const notification = toNotificationView(row!);
    const target = { type: "user", id: input.targetUserId } as const;
    await recordAudit(tx, auditSource(ctx), { action: "notification.test_in_app", target, before: null, after: notification });
    return { notification };
  });
  ctx.unreadCounts?.changed([input.targetUserId]);
  return created;
}

export type PushResult = {
  sent: number;
  failed: number;
  /** Subscriptions the push service reported gone (404/410), now inactive. */
  deactivated: number;
  results: { subscriptionId: string; statusCode: number | null; ok: boolean; error?: string }[];
};

/** Sends `{title, body, url}` to every active subscription of the target user; `sent + failed` is all of them. */
export async function sendTestPush({ ctx, input }: HandlerArgs<TestNotificationInput>): Promise<PushResult> {
  if (!ctx.push.vapid) throw new VapidNotConfiguredError();
  await requireUser(ctx.db, input.targetUserId);
  const targets = await ctx.db
    .select(pushTargetColumns)
    .from(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, input.targetUserId), eq(pushSubscriptions.isActive, true)))
    .orderBy(asc(pushSubscriptions.createdAt), asc(pushSubscriptions.id));
  const payload = testPushPayload(
    input,
    ctx.pushLinks ?? { appBaseUrl: ctx.appBaseUrl ?? null, inboxUrl: "http://localhost/console/inbox" },
  );
  const outcomes = await ctx.push.send(targets, payload, { topic: input.topic });

  const goneIds = outcomes.filter((o) => o.gone).map((o) => o.subscriptionId);
  const sent = outcomes.filter((o) => o.ok).length;
  const result: PushResult = {
    sent,
    failed: outcomes.length - sent,
    deactivated: goneIds.length,
    results: outcomes.map(({ gone: _gone, ...outcome }) => outcome),
  };
  // The pushes have left by now; what they did to the subscriptions and its record are one transaction.
  await ctx.db.transaction(async (tx) => {
    if (goneIds.length) {
      await tx.update(pushSubscriptions).set({ isActive: false, updatedAt: sql`now()` }).where(inArray(pushSubscriptions.id, goneIds));
    }
    const target = { type: "user", id: input.targetUserId } as const;
    await recordAudit(tx, auditSource(ctx), { action: "notification.test_push", target, before: null, after: result });
  });
  return result;
}

export type AdminSubscription = PushSubscription & { userName: string; userEmail: string };

/** Every user's subscriptions, active and inactive (isActive tells which), oldest first. */
export async function listAllSubscriptions({ ctx }: HandlerArgs): Promise<{ subscriptions: AdminSubscription[] }> {
  const rows = await ctx.db
    .select({ subscription: pushSubscriptions, userName: users.name, userEmail: users.email })
    .from(pushSubscriptions)
    .leftJoin(users, eq(users.id, pushSubscriptions.userId))
    .orderBy(asc(pushSubscriptions.createdAt), asc(pushSubscriptions.id));
  return {
    subscriptions: rows.map((r) => ({ ...r.subscription, userName: r.userName ?? "Unknown", userEmail: r.userEmail ?? "" })),
  };
}
