// The impact preview (docs/api.md#impact-preview): what activating or rolling back a cohort would do,
// read from the tables and judged by impactOf (impact.ts); and the same reading for a cohort not yet
// created (previewNewCohort). Both write nothing.
import { and, arrayOverlaps, eq, inArray, ne } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { proRestrictionStatus, pros, restrictionCohorts } from "../../db/schema/index.js";
import type { HandlerArgs } from "../context.js";
import { notFound } from "../errors/errors.js";
import { isUuid } from "../http/text.js";
import { cohortWithLatestCheck } from "./cohorts.js";
import { holdStatuses } from "./flags.js";
import { type CohortAction, type Impact, type ImpactFacts, impactOf } from "./impact.js";
import type { PreviewNewCohortInput } from "./schemas.js";

export async function previewCohort({ ctx, input }: HandlerArgs<{ id: string; action: CohortAction }>): Promise<Impact> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  return impactNow(ctx.db, input.id, input.action);
}

/**
 * What the action would do now, read in `db`. With `lockPros` (an approval, in a transaction holding the
 * cohort's lock), the pros' statuses are held first (holdStatuses): a change of any of them in flight, a
 * first write included, is waited for, and the flags read after it are the ones the write will replace.
 */
export async function impactNow(db: DbOrTx, id: string, action: CohortAction, { lockPros = false } = {}): Promise<Impact> {
  const { cohort, latestCheck } = await cohortWithLatestCheck(db, id);
  if (lockPros) await holdStatuses(db, cohort.proIds);
  return impactOf({ action, cohort, latestCheck, ...(await prosNow(db, cohort.proIds, cohort.id)) });
}

/** What these pros are now: their stored flags, which are known pros, and the active cohorts (but `self`) holding any. */
async function prosNow(
  db: DbOrTx,
  ids: string[],
  self: string | null,
): Promise<Pick<ImpactFacts, "flags" | "knownPros" | "otherActiveCohorts">> {
  const active = and(eq(restrictionCohorts.status, "active"), arrayOverlaps(restrictionCohorts.proIds, ids));
  const [flags, known, otherActiveCohorts] = await Promise.all([
    db
      .select({ proId: proRestrictionStatus.proId, restrictionActive: proRestrictionStatus.restrictionActive })
      .from(proRestrictionStatus)
      .where(inArray(proRestrictionStatus.proId, ids)),
    db.select({ id: pros.id }).from(pros).where(inArray(pros.id, ids)),
    db
      .select({ id: restrictionCohorts.id, proIds: restrictionCohorts.proIds })
      .from(restrictionCohorts)
      .where(self === null ? active : and(active, ne(restrictionCohorts.id, self))),
  ]);
  return {
    flags: new Map(flags.map((f) => [f.proId, f.restrictionActive])),
    knownPros: new Set(known.map((p) => p.id)),
    otherActiveCohorts,
  };
}

export type NewCohortPreview = {
  cohortNumberTaken: boolean | null;
  unknownPros: string[];
  alsoInActiveCohorts: Impact["alsoInOtherActiveCohorts"];
};

/** What creating this cohort would meet: its number taken, pros not in the pros table, pros an active cohort holds. */
export async function previewNewCohort({ ctx, input }: HandlerArgs<PreviewNewCohortInput>): Promise<NewCohortPreview> {
  const { cohortNumber } = input;
  const [taken, now] = await Promise.all([
    cohortNumber === undefined
      ? null
      : ctx.db
          .select({ id: restrictionCohorts.id })
          .from(restrictionCohorts)
          .where(eq(restrictionCohorts.cohortNumber, cohortNumber))
          .limit(1),
    prosNow(ctx.db, input.proIds, null),
  ]);
  const impact = impactOf({ action: "activate", cohort: { id: "", proIds: input.proIds }, latestCheck: null, ...now });
  return {
    cohortNumberTaken: taken === null ? null : taken.length > 0,
    unknownPros: impact.unknownPros,
    alsoInActiveCohorts: impact.alsoInOtherActiveCohorts,
  };
}
