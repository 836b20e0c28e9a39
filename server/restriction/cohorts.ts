// Cohort handlers: create, list, gate checks, gated activation and rollback. Every change writes its audit
// event in its own transaction (docs/api.md#audit-trail).
import { asc, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db, DbOrTx } from "../../db/client.js";
import { sqlState } from "../../db/errors.js";
import { communicationLogs, gateChecks, restrictionCohorts } from "../../db/schema/index.js";
import {
  type AuditSource,
  auditEventInsert,
  auditSource,
  countOnCommit,
  newAuditEventId,
  recordAudit,
  recordJson,
} from "../audit/record.js";
import type { AuthedContext, HandlerArgs } from "../context.js";
import { AppError, notFound, validationError } from "../errors/errors.js";
import { isUuid } from "../http/text.js";
import { emergencyReasonProblem } from "./emergency-reason.js";
import { flagWriteCtes } from "./flags.js";
import { activationBlocker, evaluateGates, type GateResult } from "./gates.js";
import type { CheckGatesInput, CreateCohortInput, RollbackCohortInput } from "./schemas.js";

export type Cohort = typeof restrictionCohorts.$inferSelect;
// The gate check as the API shows it: `seq` only orders checks internally.
const { seq: _seq, ...gateCheckColumns } = getTableColumns(gateChecks);
export type GateCheck = Omit<typeof gateChecks.$inferSelect, "seq">;

export async function createCohort({ ctx, input }: HandlerArgs<CreateCohortInput>): Promise<Cohort> {
  try {
    return await ctx.db.transaction(async (tx) => {
      const [cohort] = await tx.insert(restrictionCohorts).values({ cohortNumber: input.cohortNumber, proIds: input.proIds }).returning();
      await recordAudit(tx, auditSource(ctx), {
        action: "cohort.create",
        target: { type: "cohort", id: cohort!.id },
        before: null,
        after: cohort,
      });
      return cohort!;
    });
  } catch (err) {
    if (sqlState(err) === "23505") {
      throw new AppError("CONFLICT", `Cohort number ${input.cohortNumber} already exists`);
    }
    throw err;
  }
}

export async function listCohorts({ ctx }: HandlerArgs): Promise<Cohort[]> {
  return ctx.db.select().from(restrictionCohorts).orderBy(asc(restrictionCohorts.cohortNumber));
}

export async function findCohort(db: Db, id: string): Promise<Cohort> {
  if (!isUuid(id)) throw notFound("Cohort", id);
  const [cohort] = await db.select().from(restrictionCohorts).where(eq(restrictionCohorts.id, id));
  if (!cohort) throw notFound("Cohort", id);
  return cohort;
}

/**
 * The communication log is live when one row of it can be read (zero rows is still live). In a savepoint of
 * its own: inside a request's transaction (runKeyed), a failed read must not abort the rest.
 */
async function isCommunicationLogLive(db: Db): Promise<boolean> {
  try {
    await db.transaction((tx) => tx.select({ id: communicationLogs.id }).from(communicationLogs).limit(1));
    return true;
  } catch {
    return false;
  }
}

export async function checkGates({ ctx, input }: HandlerArgs<CheckGatesInput>): Promise<GateCheck> {
  const cohort = await findCohort(ctx.db, input.id);
  const inputs = {
    responseRate: input.responseRate ?? null,
    comparisonsDone: input.comparisonsDone ?? null,
    logLive: await isCommunicationLogLive(ctx.db),
    legalSignoff: input.legalSignoff ?? false,
  };
  return ctx.db.transaction(async (tx) => {
    const [check] = await tx
      .insert(gateChecks)
      .values({ cohortId: cohort.id, ...inputs, ...evaluateGates(inputs) })
      .returning(gateCheckColumns);
    await recordAudit(tx, auditSource(ctx), {
      action: "cohort.check_gates",
      target: { type: "cohort", id: cohort.id },
      before: null,
      after: check,
    });
    return check!;
  });
}

/** A cohort's gate checks, newest first (the console's history of a cohort). */
export async function listGateChecks({ ctx, input }: HandlerArgs<{ id: string }>): Promise<GateCheck[]> {
  const cohort = await findCohort(ctx.db, input.id);
  return ctx.db.select(gateCheckColumns).from(gateChecks).where(eq(gateChecks.cohortId, cohort.id)).orderBy(desc(gateChecks.seq));
}

/**
 * One column of the cohort's latest gate check, as a scalar subquery in a select from restriction_cohorts
 * (null when the cohort has none). Drizzle leaves columns unqualified inside a single-table select, so the
 * correlation is spelled out with an alias.
 */
const ofLatestGateCheck = <C extends AnyPgColumn>(column: C) =>
  sql<C["_"]["data"] | null>`(
    select gc.${sql.identifier(column.name)} from ${gateChecks} gc
    where gc.cohort_id = ${restrictionCohorts}.id order by gc.seq desc limit 1)`;

/** The cohort and its latest gate check (null when none was run), read in one statement (the preview's). */
export async function cohortWithLatestCheck(db: DbOrTx, id: string) {
  const [row] = await db
    .select({
      cohort: restrictionCohorts,
      allGatesMet: ofLatestGateCheck(gateChecks.allGatesMet),
      blockedBy: ofLatestGateCheck(gateChecks.blockedBy),
    })
    .from(restrictionCohorts)
    .where(eq(restrictionCohorts.id, id));
  if (!row) throw notFound("Cohort", id);
  // all_gates_met is NOT NULL, so null here means that no check has been run.
  const latestCheck: GateResult | null = row.allGatesMet === null ? null : { allGatesMet: row.allGatesMet, blockedBy: row.blockedBy };
  return { cohort: row.cohort, latestCheck };
}

type CohortAction = "cohort.activate" | "cohort.rollback";

/**
 * The statement that applies an activation or rollback once the transaction holds the cohort's row lock,
 * whether the cohort has 1 pro or 500: read the cohort and its latest gate check; if the action may go
 * ahead, lock the pros' statuses, write every pro's flag with its history row (flagWriteCtes), update the
 * cohort and record the audit event with the cohort before and after. It answers the gate check and the
 * cohort as changed (null when activation is blocked), or no row for an unknown cohort, having written
 * nothing then. Prepared: built on each transaction (prepared queries belong to their session), sent as
 * a server-side prepared statement, so PostgreSQL parses and plans it once per connection.
 */
function cohortChangeQuery(tx: DbOrTx, action: CohortAction) {
  const activate = action === "cohort.activate";
  const param = (name: keyof CohortChangeParams) => sql.placeholder(name);
  const cohort = tx
    .$with("cohort", {
      allGatesMet: sql<boolean | null>`all_gates_met`.as("all_gates_met"),
      blockedBy: sql<string | null>`blocked_by`.as("blocked_by"),
    })
    .as(sql`
      select c.*, g.all_gates_met, g.blocked_by from ${restrictionCohorts} c
      left join lateral (select all_gates_met, blocked_by from ${gateChecks}
                         where cohort_id = c.id order by seq desc limit 1) g on true
      where c.id = ${param("id")}::uuid`);
  // The cohort, if the action goes ahead: activation needs its latest gate check passed (docs/api.md#gates).
  const go = tx.$with("go", {}).as(activate ? sql`select * from cohort where all_gates_met` : sql`select * from cohort`);
  const flags = flagWriteCtes(tx, {
    proIds: sql`(select pro_ids from go)::text[]`,
    restrictionActive: activate,
    via: "cohort",
    cohortId: sql`(select id from go)`,
    auditEventId: sql`${param("auditEventId")}::uuid`,
  });
  const set = activate
    ? sql`status = 'active', activated_at = now()`
    : sql`status = 'rolled_back', rollback_at = now(), rollback_reason = ${param("reason")}::text`;
  const changed = tx
    .$with("changed", getTableColumns(restrictionCohorts))
    .as(sql`update ${restrictionCohorts} c set ${set} from go where c.id = go.id returning c.*`);
  const event = tx.$with("event", {}).as(
    auditEventInsert({
      id: sql`${param("auditEventId")}`,
      actorId: sql`${param("actorId")}`,
      actorEmail: sql`${param("actorEmail")}`,
      requestId: sql`${param("requestId")}`,
      impersonatedBy: { id: sql`${param("impersonatorId")}`, email: sql`${param("impersonatorEmail")}` },
      action,
      targetType: "cohort",
      targetId: sql`changed.id`,
      before: recordJson(restrictionCohorts, "go"),
      after: recordJson(restrictionCohorts, "changed"),
      reason: activate ? sql`null` : sql`${param("reason")}`,
      from: sql`go, changed`,
      details: sql`${param("details")}::text::jsonb`,
    }),
  );
  return tx
    .with(cohort, go, ...flags, changed, event)
    .select({ allGatesMet: cohort.allGatesMet, blockedBy: cohort.blockedBy, cohort: changed._.selectedFields })
    .from(cohort)
    .leftJoin(changed, sql`true`)
    .prepare(activate ? "cohort_activate" : "cohort_rollback");
}

type CohortChangeParams = {
  id: string;
  auditEventId: string;
  actorId: string;
  actorEmail: string;
  requestId: string | null;
  impersonatorId: string | null;
  impersonatorEmail: string | null;
  reason: string | null;
  /** audit_events.details as JSON text, or null. */
  details: string | null;
};

/**
 * One transaction of two statements: lock the cohort row (concurrent activations and rollbacks of it
 * queue up here), then apply the change (cohortChangeQuery). The change is a statement of its own because
 * PostgreSQL (read committed) reads as of the moment a statement starts: started before the wait for the
 * lock, it would not see the statuses that the activation it waited for had inserted, and their history
 * rows would say they were off. Started after, it sees everything committed before it, and no gate check
 * can be added while it runs (adding one takes a key-share lock on the cohort row).
 */
async function changeCohort(
  ctx: AuthedContext,
  id: string,
  action: CohortAction,
  reason: string | null,
  details: Record<string, unknown> | null = null,
): Promise<Cohort> {
  if (!isUuid(id)) throw notFound("Cohort", id);
  return ctx.db.transaction(async (tx) => {
    await lockCohort(tx, id);
    return applyCohortChange(tx, auditSource(ctx), { id, action, reason, details });
  });
}

/** Takes the cohort's row lock for the rest of the transaction (see applyCohortChange); 404 when there is no such cohort. */
export async function lockCohort(tx: DbOrTx, id: string): Promise<void> {
  const lock = tx
    .select({ id: restrictionCohorts.id })
    .from(restrictionCohorts)
    .where(eq(restrictionCohorts.id, sql.placeholder("id")))
    .for("update")
    .prepare("cohort_lock");
  const [locked] = await lock.execute({ id });
  if (!locked) throw notFound("Cohort", id);
}

/**
 * The change, in a transaction that holds the cohort's row lock (lockCohort): a statement of its own
 * because PostgreSQL (read committed) reads as of the moment a statement starts: started before the wait
 * for the lock, it would not see the statuses that the activation it waited for had inserted, and their
 * history rows would say they were off. Started after, it sees everything committed before it, and no
 * gate check can be added while it runs (adding one takes a key-share lock on the cohort row).
 */
export async function applyCohortChange(
  tx: DbOrTx,
  source: AuditSource,
  change: { id: string; action: CohortAction; reason: string | null; details: Record<string, unknown> | null },
): Promise<Cohort> {
  const { id, action } = change;
  const params: CohortChangeParams = {
    id,
    auditEventId: newAuditEventId(),
    actorId: source.actor.id,
    actorEmail: source.actor.email,
    requestId: source.requestId,
    impersonatorId: source.impersonatedBy?.id ?? null,
    impersonatorEmail: source.impersonatedBy?.email ?? null,
    reason: change.reason,
    details: change.details ? JSON.stringify(change.details) : null,
  };
  const [row] = await cohortChangeQuery(tx, action).execute(params);
  if (!row) throw notFound("Cohort", id);
  if (!row.cohort) {
    // Only an activation is ever held back, and only by its gate check (all_gates_met is NOT NULL, so null
    // means that no check has been run).
    const latestCheck: GateResult | null = row.allGatesMet === null ? null : { allGatesMet: row.allGatesMet, blockedBy: row.blockedBy };
    const blocker = activationBlocker(latestCheck);
    if (!blocker) throw new Error(`cohort ${id}: ${action} wrote nothing although its gate check passed`);
    throw validationError(blocker);
  }
  countOnCommit(tx, action);
  return row.cohort;
}

/**
 * Activation: refused (400) while the cohort's latest gate check is missing or failing; with APPROVALS
 * required, only through an approved change request (409 here).
 */
export async function activateCohort({ ctx, input }: HandlerArgs<{ id: string }>): Promise<Cohort> {
  if (ctx.approvals === "required") throw new AppError("CONFLICT", "Approval required: create a change request");
  return changeCohort(ctx, input.id, "cohort.activate", null);
}

/**
 * Rollback: any status may be rolled back; a blank reason is stored as null. With APPROVALS required an
 * emergency must not wait: it goes ahead at once with a written reason (emergency-reason.ts), audited as
 * bypassing approval.
 */
export async function rollbackCohort({ ctx, input }: HandlerArgs<RollbackCohortInput>): Promise<Cohort> {
  const reason = input.reason?.trim() ? input.reason : null;
  if (ctx.approvals !== "required") return changeCohort(ctx, input.id, "cohort.rollback", reason);
  const problem = emergencyReasonProblem(reason);
  if (problem) {
    throw validationError("Approval required: a rollback without a change request needs a written reason", [
      { field: "reason", message: problem },
    ]);
  }
  return changeCohort(ctx, input.id, "cohort.rollback", reason, { approvalBypassed: true });
}
