// The database as the run left it, read once the traffic stopped and the queue drained: what the checker
// compares the acknowledged writes with.
import type postgres from "postgres";
import type { FinalDb } from "./history.js";

export async function readFinal(db: postgres.Sql): Promise<FinalDb> {
  const pros = await db`select pro_id as id, restriction_active as active from pro_restriction_status`;
  const notifications = await db`
    select id, user_id as "userId", read_at is not null as read, deleted_at is not null as deleted from notifications`;
  const events = await db`
    select producer, event_id as "eventId", user_id as "userId", notification_id as "notificationId" from notification_events`;
  const deliveries = await db`
    select d.id, d.event_id as "eventId", d.status, d.attempts, e.notification_id as "notificationId",
           regexp_replace(s.endpoint, '^https?://[^/]+', '') as path
    from push_deliveries d
    join push_subscriptions s on s.id = d.subscription_id
    left join notification_events e on e.producer = d.producer and e.event_id = d.event_id`;
  const changeRequests = await db`
    select id, cohort_id as "cohortId", pro_id as "proId", action, status, requested_by_id as "requestedById",
           decided_by_id as "decidedById", decided_at::text as "decidedAt", applied_at::text as "appliedAt"
    from change_requests`;
  const activations = await db`
    select action, target_id as "targetId", actor_id as "actorId", details->>'changeRequestId' as "changeRequestId",
           coalesce((details->>'approvalBypassed')::boolean, false) as bypassed
    from audit_events where action in ('cohort.activate', 'pro.activate')`;
  const idempotency = await db`select user_id as "userId", key, status from idempotency_keys`;
  const users = await db`select id, email from users`;
  const plain = <T>(rows: readonly unknown[]) => rows.map((row) => ({ ...(row as object) })) as T[];
  return {
    pros: plain(pros),
    notifications: plain(notifications),
    events: plain(events),
    deliveries: plain(deliveries),
    changeRequests: plain(changeRequests),
    activations: plain(activations),
    idempotency: plain(idempotency),
    users: plain(users),
  };
}
