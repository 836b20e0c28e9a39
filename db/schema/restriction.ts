import { sql } from "drizzle-orm";
import { bigserial, boolean, check, doublePrecision, index, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

import { isOneOf } from "./checks.js";

const tz = { withTimezone: true } as const;

import { cohortStatuses } from "./restriction-values.js";

export { type CohortStatus, cohortStatuses } from "./restriction-values.js";

/** The professionals a restriction can apply to. */
export const pros = pgTable("pros", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: timestamp("created_at", tz).notNull().defaultNow(),
});

export const restrictionCohorts = pgTable(
  "restriction_cohorts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    cohortNumber: integer("cohort_number").notNull().unique(),
    proIds: text("pro_ids").array().notNull(),
    status: text("status", { enum: cohortStatuses }).notNull().default("pending"),
    activatedAt: timestamp("activated_at", tz),
    rollbackAt: timestamp("rollback_at", tz),
    rollbackReason: text("rollback_reason"),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
  },
  (t) => [
    check("restriction_cohorts_number_positive", sql`${t.cohortNumber} > 0`),
    check("restriction_cohorts_status_valid", isOneOf(t.status, cohortStatuses)),
    // The impact preview finds the other active cohorts that hold any of a cohort's pros.
    index("restriction_cohorts_active_pros_idx").using("gin", t.proIds).where(sql`${t.status} = 'active'`),
  ],
);

/**
 * The restriction flag of one pro. No foreign key to `pros`: a cohort may list pros that are not
 * registered yet (docs/api.md#activation-and-rollback), and their flag must still be recorded.
 */
export const proRestrictionStatus = pgTable(
  "pro_restriction_status",
  {
    proId: text("pro_id").primaryKey(),
    restrictionActive: boolean("restriction_active").notNull().default(false),
    cohortId: uuid("cohort_id").references(() => restrictionCohorts.id, { onDelete: "set null" }),
    updatedAt: timestamp("updated_at", tz).notNull().defaultNow(),
  },
  // GET / lists the active ones ordered by proId.
  (t) => [index("pro_restriction_status_active_idx").on(t.proId).where(sql`${t.restrictionActive}`)],
);

/** One record per check-gates run. */
export const gateChecks = pgTable(
  "gate_checks",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    cohortId: uuid("cohort_id")
      .notNull()
      .references(() => restrictionCohorts.id, { onDelete: "cascade" }),
    responseRate: doublePrecision("response_rate"),
    comparisonsDone: integer("comparisons_done"),
    logLive: boolean("log_live").notNull(),
    legalSignoff: boolean("legal_signoff").notNull(),
    allGatesMet: boolean("all_gates_met").notNull(),
    blockedBy: text("blocked_by"),
    checkedAt: timestamp("checked_at", tz).notNull().defaultNow(),
    /** Insertion order: "latest" must not depend on two checks' clocks differing. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
  },
  // activate reads the latest check of one cohort.
  (t) => [index("gate_checks_cohort_seq_idx").on(t.cohortId, t.seq.desc())],
);

/** Messages between users and pros; check-gates only needs to know the table answers. */
export const communicationLogs = pgTable(
  "communication_logs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    proId: text("pro_id").notNull(),
    userId: text("user_id"),
    channel: text("channel").notNull(),
    createdAt: timestamp("created_at", tz).notNull().defaultNow(),
  },
  (t) => [index("communication_logs_pro_id_idx").on(t.proId, t.createdAt)],
);
