// Cohort handlers: create, list, gate checks, gated activation and rollback. Every change writes its audit
// event in its own transaction (docs/api.md#audit-trail).
import { asc, desc, eq, getTableColumns, sql } from "drizzle-orm";
import type { AnyPgColumn, PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Db, DbOrTx } from "../../../db/client.js";
import { sqlState } from "../../../db/errors.js";
import { communicationLogs, gateChecks, restrictionCohorts } from "../../../db/schema/index.js";
import { AppError, notFound, validationError } from "../../errors.js";
import { auditSource, newAuditEventId, recordAudit } from "../../audit/record.js";
import { isUuid, type AuthedContext, type HandlerArgs } from "../types.js";
import { lockStatuses, writeFlags } from "./flags.js";
import { activationBlocker, evaluateGates, type GateResult } from "./gates.js";
import type { CheckGatesInput, CreateCohortInput, RollbackCohortInput } from "./schemas.js";

export type Cohort = typeof restrictionCohorts.$inferSelect;
// The gate check as the API shows it: `seq` only orders checks internally.
const { seq: _seq, ...gateCheckColumns } = getTableColumns(gateChecks);
export type GateCheck = Omit<typeof gateChecks.$inferSelect, "seq">;

export async function createCohort({ ctx, input }: HandlerArgs<CreateCohortInput>): Promise<Cohort> {
  try {
    return await ctx.db.transaction(async (tx) => {
      const [cohort] = await tx
        .insert(restrictionCohorts)
        .values({ cohortNumber: input.cohortNumber, proIds: input.proIds })
        .returning();
      await recordAudit(tx, auditSource(ctx), { action: "cohort.create", target: { type: "cohort", id: cohort!.id }, before: null, after: cohort });
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

async function findCohort(db: Db, id: string): Promise<Cohort> {
  if (!isUuid(id)) throw notFound("Cohort", id);
  const [cohort] = await db.select().from(restrictionCohorts).where(eq(restrictionCohorts.id, id));
  if (!cohort) throw notFound("Cohort", id);
  return cohort;
}

/** The communication log is live when one row of it can be read (zero rows is still live). */
async function isCommunicationLogLive(db: Db): Promise<boolean> {
  try {
    await db.select({ id: communicationLogs.id }).from(communicationLogs).limit(1);
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
    await recordAudit(tx, auditSource(ctx), { action: "cohort.check_gates", target: { type: "cohort", id: cohort.id }, before: null, after: check });
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

/** The cohort and its latest gate check (null when none was run), read in one statement. */
export async function cohortWithLatestCheck(db: DbOrTx, id: string, options: { lock: boolean }) {
  const query = db
    .select({
      cohort: restrictionCohorts,
      allGatesMet: ofLatestGateCheck(gateChecks.allGatesMet),
      blockedBy: ofLatestGateCheck(gateChecks.blockedBy),
    })
    .from(restrictionCohorts)
    .where(eq(restrictionCohorts.id, id));
  const [row] = await (options.lock ? query.for("update") : query);
  if (!row) throw notFound("Cohort", id);
  // all_gates_met is NOT NULL, so null here means that no check has been run.
  const latestCheck: GateResult | null = row.allGatesMet === null ? null : { allGatesMet: row.allGatesMet, blockedBy: row.blockedBy };
  return { cohort: row.cohort, latestCheck };
}

type CohortChange = {
  action: "cohort.activate" | "cohort.rollback";
  restrictionActive: boolean;
  set: PgUpdateSetSource<typeof restrictionCohorts>;
  reason: string | null;
};

/**
 * The rest of an activation or rollback once the cohort row is locked: lock the pros' statuses, flag every
 * pro with its history row in one statement, update the cohort, record the audit event. Five statements in
 * all, whether the cohort has 1 pro or 500.
 */
async function applyCohortChange(tx: DbOrTx, ctx: AuthedContext, before: Cohort, change: CohortChange): Promise<Cohort> {
  const auditEventId = newAuditEventId();
  await lockStatuses(tx, before.proIds);
  await writeFlags(tx, { proIds: before.proIds, restrictionActive: change.restrictionActive, via: "cohort", cohortId: before.id, auditEventId });
  const [after] = await tx.update(restrictionCohorts).set(change.set).where(eq(restrictionCohorts.id, before.id)).returning();
  const target = { type: "cohort", id: before.id } as const;
  await recordAudit(tx, auditSource(ctx), { id: auditEventId, action: change.action, target, before, after, reason: change.reason });
  return after!;
}

/**
 * One transaction: lock the cohort row and read its latest gate check in the same statement (concurrent
 * activations and rollbacks of it queue up), refuse when the gates say so, then apply the change.
 */
export async function activateCohort({ ctx, input }: HandlerArgs<{ id: string }>): Promise<Cohort> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  return ctx.db.transaction(async (tx) => {
    const { cohort, latestCheck } = await cohortWithLatestCheck(tx, input.id, { lock: true });
    const blocker = activationBlocker(latestCheck);
    if (blocker) throw validationError(blocker);
    return applyCohortChange(tx, ctx, cohort, {
      action: "cohort.activate",
      restrictionActive: true,
      set: { status: "active", activatedAt: sql`now()` },
      reason: null,
    });
  });
}

/** One transaction: lock the cohort row, then apply the change; any status may be rolled back. */
export async function rollbackCohort({ ctx, input }: HandlerArgs<RollbackCohortInput>): Promise<Cohort> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  const reason = input.reason?.trim() ? input.reason : null;
  return ctx.db.transaction(async (tx) => {
    const [cohort] = await tx.select().from(restrictionCohorts).where(eq(restrictionCohorts.id, input.id)).for("update");
    if (!cohort) throw notFound("Cohort", input.id);
    return applyCohortChange(tx, ctx, cohort, {
      action: "cohort.rollback",
      restrictionActive: false,
      set: { status: "rolled_back", rollbackAt: sql`now()`, rollbackReason: reason },
      reason,
    });
  });
}
