// The audit trail (docs/api.md#audit-trail): one append-only row per admin change, written in the same
// transaction as the change; the database refuses UPDATE and DELETE on it (migration 0002's trigger).

import { sql } from "drizzle-orm";
import { bigserial, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { isOneOf } from "./checks.js";

const tz = { withTimezone: true } as const;

import { auditActions, auditTargetTypes } from "./audit-actions.js";
import { flagChangeVias } from "./restriction-values.js";

export { type AuditAction, type AuditTargetType, auditActions, auditTargetTypes } from "./audit-actions.js";
export { flagChangeVias } from "./restriction-values.js";

export const auditEvents = pgTable(
  "audit_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Insertion order: the newest-first listing and its cursor do not depend on clocks. */
    seq: bigserial("seq", { mode: "number" }).notNull().unique(),
    at: timestamp("at", tz).notNull().defaultNow(),
    actorId: text("actor_id").notNull(),
    actorEmail: text("actor_email").notNull(),
    action: text("action", { enum: auditActions }).notNull(),
    targetType: text("target_type", { enum: auditTargetTypes }).notNull(),
    targetId: text("target_id").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    reason: text("reason"),
    requestId: text("request_id"),
    /**
     * The admin behind a change made in an impersonation session (better-auth's sessions.impersonated_by):
     * the actor is then the impersonated user. Null when the actor acted in a session of their own.
     */
    impersonatorId: text("impersonator_id"),
    impersonatorEmail: text("impersonator_email"),
    /**
     * What else the change came with: `{approvalBypassed: true}` on a rollback made without a change request
     * while approvals are required; `{changeRequestId, requestedBy}` on a change an approval applied.
     */
    details: jsonb("details"),
  },
  (t) => [
    check("audit_events_action_valid", isOneOf(t.action, auditActions)),
    check("audit_events_target_type_valid", isOneOf(t.targetType, auditTargetTypes)),
    check("audit_events_impersonator_whole", sql`(${t.impersonatorId} is null) = (${t.impersonatorEmail} is null)`),
    // One index per filter of GET /api/admin/audit, each ending in seq for the newest-first cursor.
    index("audit_events_action_idx").on(t.action, t.seq.desc()),
    index("audit_events_target_idx").on(t.targetType, t.targetId, t.seq.desc()),
    index("audit_events_actor_idx").on(t.actorId, t.seq.desc()),
    index("audit_events_at_idx").on(t.at),
    // An actor filter also finds what an admin did under an impersonation session, and an email finds the
    // events of an account as it was named then (emails are compared lower-cased, as better-auth stores them).
    index("audit_events_impersonator_idx").on(t.impersonatorId, t.seq.desc()),
    index("audit_events_actor_email_idx").on(sql`lower(${t.actorEmail})`, t.seq.desc()),
    index("audit_events_impersonator_email_idx").on(sql`lower(${t.impersonatorEmail})`, t.seq.desc()),
  ],
);

/**
 * Every write of a pro's restriction flag, per pro or by a cohort, with the flag before it: a pro's
 * history is one index range. `auditEventId` is the change's audit event, written in the same transaction
 * (no foreign key: the flag rows are written before the event that describes their outcome).
 */
export const proFlagChanges = pgTable(
  "pro_flag_changes",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    proId: text("pro_id").notNull(),
    at: timestamp("at", tz).notNull().defaultNow(),
    restrictionActive: boolean("restriction_active").notNull(),
    previous: boolean("previous").notNull(),
    via: text("via", { enum: flagChangeVias }).notNull(),
    cohortId: uuid("cohort_id"),
    auditEventId: uuid("audit_event_id").notNull(),
  },
  (t) => [check("pro_flag_changes_via_valid", isOneOf(t.via, flagChangeVias)), index("pro_flag_changes_pro_idx").on(t.proId, t.id.desc())],
);

/** `Idempotency-Key` of REST writes (docs/api.md#safe-retries), kept in the database so every instance sees it. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    userId: text("user_id").notNull(),
    key: text("key").notNull(),
    /** A hash of method, path and body: the same key with another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    /** Null while the first request runs. */
    status: integer("status"),
    responseBody: text("response_body"),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", tz).notNull(),
  },
  (t) => [uniqueIndex("idempotency_keys_user_key_idx").on(t.userId, t.key), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);
