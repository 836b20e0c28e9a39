// A cohort's coverage (docs/api.md#cohort-coverage): which of its pros are not restricted now, and the
// change that turned each off. An active cohort reads "Active, 20 pros" while a later rollback of another
// cohort, or a per-pro rollback, may have switched some of them off: this says which and why.
import { and, desc, eq, inArray } from "drizzle-orm";
import { auditEvents, proFlagChanges, proRestrictionStatus, restrictionCohorts } from "../../db/schema/index.js";
import type { HandlerArgs } from "../context.js";
import { findCohort } from "./cohorts.js";
import { flagChangeColumns, withActor } from "./history.js";

export type TurnedOffBy = {
  at: Date;
  via: "pro" | "cohort";
  cohortId: string | null;
  cohortNumber: number | null;
  action: (typeof auditEvents.$inferSelect)["action"];
  reason: string | null;
  actor: { id: string; email: string };
  auditEventId: string;
};

export type CohortCoverage = {
  cohortId: string;
  status: "pending" | "active" | "rolled_back";
  restricted: number;
  notRestricted: { proId: string; turnedOffBy: TurnedOffBy | null }[];
};

export async function cohortCoverage({ ctx, input }: HandlerArgs<{ id: string }>): Promise<CohortCoverage> {
  const cohort = await findCohort(ctx.db, input.id);
  const on = await ctx.db
    .select({ proId: proRestrictionStatus.proId })
    .from(proRestrictionStatus)
    .where(and(inArray(proRestrictionStatus.proId, cohort.proIds), eq(proRestrictionStatus.restrictionActive, true)));
  const restricted = new Set(on.map((r) => r.proId));
  const off = cohort.proIds.filter((proId) => !restricted.has(proId));
  // The latest change of each pro that is off: the one that turned it off (each one index range).
  const latest =
    off.length === 0
      ? []
      : await ctx.db
          .selectDistinctOn([proFlagChanges.proId], {
            ...flagChangeColumns,
            proId: proFlagChanges.proId,
            action: auditEvents.action,
            reason: auditEvents.reason,
          })
          .from(proFlagChanges)
          .innerJoin(auditEvents, eq(auditEvents.id, proFlagChanges.auditEventId))
          .leftJoin(restrictionCohorts, eq(restrictionCohorts.id, proFlagChanges.cohortId))
          .where(inArray(proFlagChanges.proId, off))
          .orderBy(proFlagChanges.proId, desc(proFlagChanges.id));
  const byPro = new Map(latest.map(({ proId, ...change }) => [proId, withActor(change)]));
  return {
    cohortId: cohort.id,
    status: cohort.status,
    restricted: cohort.proIds.length - off.length,
    notRestricted: off.map((proId) => ({ proId, turnedOffBy: byPro.get(proId) ?? null })),
  };
}
