// A pro's history (docs/api.md#pro-history): every write of its flag, per pro or by a cohort, newest
// first, with the flag before, the cohort and who did it. One query over the pro's index range.
import { desc, eq } from "drizzle-orm";
import { auditEvents, proFlagChanges, restrictionCohorts } from "../../db/schema/index.js";
import type { HandlerArgs } from "../context.js";

export type ProFlagChange = {
  at: Date;
  restrictionActive: boolean;
  previous: boolean;
  via: "pro" | "cohort";
  cohortId: string | null;
  cohortNumber: number | null;
  actor: { id: string; email: string };
  auditEventId: string;
};

/** A flag change's columns with what its audit event and cohort say of it (joined as proHistory joins them). */
export const flagChangeColumns = {
  at: proFlagChanges.at,
  via: proFlagChanges.via,
  cohortId: proFlagChanges.cohortId,
  cohortNumber: restrictionCohorts.cohortNumber,
  actorId: auditEvents.actorId,
  actorEmail: auditEvents.actorEmail,
  auditEventId: proFlagChanges.auditEventId,
};

/** A row read with flagChangeColumns, its actor as the API shows one. */
export const withActor = <T extends { actorId: string; actorEmail: string }>({ actorId, actorEmail, ...rest }: T) => ({
  ...rest,
  actor: { id: actorId, email: actorEmail },
});

export async function proHistory({ ctx, input }: HandlerArgs<{ proId: string }>): Promise<{ proId: string; changes: ProFlagChange[] }> {
  const rows = await ctx.db
    .select({ ...flagChangeColumns, restrictionActive: proFlagChanges.restrictionActive, previous: proFlagChanges.previous })
    .from(proFlagChanges)
    .innerJoin(auditEvents, eq(auditEvents.id, proFlagChanges.auditEventId))
    .leftJoin(restrictionCohorts, eq(restrictionCohorts.id, proFlagChanges.cohortId))
    .where(eq(proFlagChanges.proId, input.proId))
    .orderBy(desc(proFlagChanges.id));
  return {
    proId: input.proId,
    changes: rows.map(withActor),
  };
}
