// Four-eyes approval (docs/api.md#four-eyes-approval): one admin asks, another approves, and the approval
// applies only the impact that was reviewed. A request is about exactly one of: a cohort (activate or
// rollback), one pro (activate), a user (grant-admin).
import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { isOneOf } from "./checks.js";
import { restrictionCohorts } from "./restriction.js";
import { changeRequestActions, changeRequestStatuses } from "./restriction-values.js";

const tz = { withTimezone: true } as const;

export const changeRequests = pgTable(
  "change_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    cohortId: uuid("cohort_id").references(() => restrictionCohorts.id, { onDelete: "cascade" }),
    /** A pro's own activation. */
    proId: text("pro_id"),
    /** grant-admin: the user to make an admin, and their address when asked (no key: a removed user's request stays). */
    userId: text("user_id"),
    userEmail: text("user_email"),
    /**
     * grant-admin: a digest of the target's identity when asked (id, e-mail, creation, password hash;
     * server/accounts/identity.ts). Another digest at approval means another person: the request is stale.
     */
    targetIdentity: text("target_identity"),
    action: text("action", { enum: changeRequestActions }).notNull(),
    reason: text("reason"),
    status: text("status", { enum: changeRequestStatuses }).notNull().default("pending"),
    requestedById: text("requested_by_id").notNull(),
    requestedByEmail: text("requested_by_email").notNull(),
    requestedAt: timestamp("requested_at", tz).notNull().defaultNow(),
    /** The impact preview at request time (server/restriction/impact.ts): what the approver reviews; null for grant-admin. */
    preview: jsonb("preview"),
    decidedById: text("decided_by_id"),
    decidedByEmail: text("decided_by_email"),
    decidedAt: timestamp("decided_at", tz),
    comment: text("comment"),
    appliedAt: timestamp("applied_at", tz),
  },
  (t) => [
    check("change_requests_action_valid", isOneOf(t.action, changeRequestActions)),
    check(
      "change_requests_one_target",
      sql`num_nonnulls(${t.cohortId}, ${t.proId}, ${t.userId}) = 1 and (${t.userId} is not null) = (${t.action} = 'grant-admin')`,
    ),
    check("change_requests_status_valid", isOneOf(t.status, changeRequestStatuses)),
    // At most one pending request per cohort and action.
    uniqueIndex("change_requests_one_pending_idx").on(t.cohortId, t.action).where(sql`${t.status} = 'pending'`),
    uniqueIndex("change_requests_one_pending_pro_idx").on(t.proId, t.action).where(sql`${t.status} = 'pending'`),
    uniqueIndex("change_requests_one_pending_user_idx").on(t.userId).where(sql`${t.status} = 'pending'`),
    index("change_requests_requested_idx").on(t.requestedAt.desc()),
  ],
);
