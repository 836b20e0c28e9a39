// Cohort handlers: create, list, gate checks, gated activation and rollback.
import { asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "../../../db/client.js";
import { sqlState } from "../../../db/errors.js";
import { communicationLogs, gateChecks, restrictionCohorts } from "../../../db/schema/index.js";
import { AppError, notFound, validationError } from "../../errors.js";
import { isUuid, type HandlerArgs } from "../types.js";
import { activationBlocker, evaluateGates } from "./gates.js";
import { upsertRestriction } from "./pros.js";
import type { CheckGatesInput, CreateCohortInput, RollbackCohortInput } from "./schemas.js";

export type Cohort = typeof restrictionCohorts.$inferSelect;
// The gate check as the API shows it: `seq` only orders checks internally.
const { seq: _seq, ...gateCheckColumns } = getTableColumns(gateChecks);
export type GateCheck = Omit<typeof gateChecks.$inferSelect, "seq">;

export async function createCohort({ ctx, input }: HandlerArgs<CreateCohortInput>): Promise<Cohort> {
  try {
    const [cohort] = await ctx.db
      .insert(restrictionCohorts)
      .values({ cohortNumber: input.cohortNumber, proIds: input.proIds })
      .returning();
    return cohort!;
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
  const [check] = await ctx.db
    .insert(gateChecks)
    .values({ cohortId: cohort.id, ...inputs, ...evaluateGates(inputs) })
    .returning(gateCheckColumns);
  return check!;
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

/**
 * One transaction: lock the cohort row (concurrent activate/rollback of it queue up), read its latest
 * gate check in the same statement, flag every pro in one statement, then update the cohort.
 */
export async function activateCohort({ ctx, input }: HandlerArgs<{ id: string }>): Promise<Cohort> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        proIds: restrictionCohorts.proIds,
        allGatesMet: ofLatestGateCheck(gateChecks.allGatesMet),
        blockedBy: ofLatestGateCheck(gateChecks.blockedBy),
      })
      .from(restrictionCohorts)
      .where(eq(restrictionCohorts.id, input.id))
      .for("update");
    if (!row) throw notFound("Cohort", input.id);
    // all_gates_met is NOT NULL, so null here means that no check has been run.
    const latest = row.allGatesMet === null ? null : { allGatesMet: row.allGatesMet, blockedBy: row.blockedBy };
    const blocker = activationBlocker(latest);
    if (blocker) throw validationError(blocker);

    await upsertRestriction(tx, row.proIds, true, input.id);
    const [cohort] = await tx
      .update(restrictionCohorts)
      .set({ status: "active", activatedAt: sql`now()` })
      .where(eq(restrictionCohorts.id, input.id))
      .returning();
    return cohort!;
  });
}

/** One transaction: the UPDATE locks and returns the cohort, then every pro is cleared in one statement. */
export async function rollbackCohort({ ctx, input }: HandlerArgs<RollbackCohortInput>): Promise<Cohort> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  const reason = input.reason?.trim() ? input.reason : null;
  return ctx.db.transaction(async (tx) => {
    const [cohort] = await tx
      .update(restrictionCohorts)
      .set({ status: "rolled_back", rollbackAt: sql`now()`, rollbackReason: reason })
      .where(eq(restrictionCohorts.id, input.id))
      .returning();
    if (!cohort) throw notFound("Cohort", input.id);
    await upsertRestriction(tx, cohort.proIds, false, cohort.id);
    return cohort;
  });
}
