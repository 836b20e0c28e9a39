// Four-eyes approval of cohort changes (docs/api.md#four-eyes-approval): one admin asks, another approves,
// and the approval applies only the impact that was reviewed.
import { sql } from "drizzle-orm";
import { check, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { isOneOf } from "./checks.js";
import { restrictionCohorts } from "./restriction.js";
import { changeRequestStatuses, cohortActions } from "./restriction-values.js";

const tz = { withTimezone: true } as const;

export const changeRequests = pgTable(
  "change_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    cohortId: uuid("cohort_id")
      .notNull()
      .references(() => restrictionCohorts.id, { onDelete: "cascade" }),
    action: text("action", { enum: cohortActions }).notNull(),
    reason: text("reason"),
    status: text("status", { enum: changeRequestStatuses }).notNull().default("pending"),
    requestedById: text("requested_by_id").notNull(),
    requestedByEmail: text("requested_by_email").notNull(),
    requestedAt: timestamp("requested_at", tz).notNull().defaultNow(),
    /** The impact preview at request time (server/routers/restriction/impact.ts): what the approver reviews. */
    preview: jsonb("preview").notNull(),
    decidedById: text("decided_by_id"),
    decidedByEmail: text("decided_by_email"),
    decidedAt: timestamp("decided_at", tz),
    comment: text("comment"),
    appliedAt: timestamp("applied_at", tz),
  },
  (t) => [
    check("change_requests_action_valid", isOneOf(t.action, cohortActions)),
    check("change_requests_status_valid", isOneOf(t.status, changeRequestStatuses)),
    // At most one pending request per cohort and action.
    uniqueIndex("change_requests_one_pending_idx").on(t.cohortId, t.action).where(sql`${t.status} = 'pending'`),
    index("change_requests_requested_idx").on(t.requestedAt.desc()),
  ],
);
