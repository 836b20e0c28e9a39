// The impact preview (docs/api.md#impact-preview): what activating or rolling back a cohort would do,
// read from the tables and judged by impactOf (impact.ts). It writes nothing.
import { and, arrayOverlaps, eq, inArray, ne } from "drizzle-orm";
import type { DbOrTx } from "../../../db/client.js";
import { proRestrictionStatus, pros, restrictionCohorts } from "../../../db/schema/index.js";
import { notFound } from "../../errors/errors.js";
import { type HandlerArgs, isUuid } from "../types.js";
import { cohortWithLatestCheck } from "./cohorts.js";
import { type CohortAction, type Impact, impactOf } from "./impact.js";

export async function previewCohort({ ctx, input }: HandlerArgs<{ id: string; action: CohortAction }>): Promise<Impact> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  return impactNow(ctx.db, input.id, input.action);
}

/** What the action would do now, read in `db` (a transaction holding the cohort's lock reads what it would apply). */
export async function impactNow(db: DbOrTx, id: string, action: CohortAction): Promise<Impact> {
  const { cohort, latestCheck } = await cohortWithLatestCheck(db, id);
  const ids = cohort.proIds;
  const [flags, known, otherActiveCohorts] = await Promise.all([
    db
      .select({ proId: proRestrictionStatus.proId, restrictionActive: proRestrictionStatus.restrictionActive })
      .from(proRestrictionStatus)
      .where(inArray(proRestrictionStatus.proId, ids)),
    db.select({ id: pros.id }).from(pros).where(inArray(pros.id, ids)),
    db
      .select({ id: restrictionCohorts.id, proIds: restrictionCohorts.proIds })
      .from(restrictionCohorts)
      .where(
        and(eq(restrictionCohorts.status, "active"), ne(restrictionCohorts.id, cohort.id), arrayOverlaps(restrictionCohorts.proIds, ids)),
      ),
  ]);
  return impactOf({
    action,
    cohort,
    latestCheck,
    flags: new Map(flags.map((f) => [f.proId, f.restrictionActive])),
    knownPros: new Set(known.map((p) => p.id)),
    otherActiveCohorts,
  });
}
