// Per-pro restriction flags: read, list the active ones, and the ungated opt-in / ops-override switch.
import { asc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../../db/client.js";
import { proRestrictionStatus, pros } from "../../../db/schema/index.js";
import { notFound } from "../../errors.js";
import { auditSource, newAuditEventId } from "../../audit/record.js";
import type { AuthedContext, HandlerArgs } from "../types.js";
import { lockStatuses, recordFlagChanges } from "./flags.js";

export type ProStatus = {
  proId: string;
  restrictionActive: boolean;
  /** The cohort whose activation or rollback set the flag; null when set per pro. */
  cohortId: string | null;
  updatedAt: Date;
};

/** A pro with no stored status: exactly these two keys (docs/api.md#pro-status). */
export type NoProStatus = { proId: string; restrictionActive: false };

/**
 * The statement that sets the flag of many pros at once (a batch upsert); await it, or add .returning().
 * Rows are written in proId order so that two transactions touching overlapping pros take their row
 * locks in the same order and never deadlock. proIds must not be empty.
 */
export function upsertRestriction(
  db: DbOrTx,
  proIds: readonly string[],
  restrictionActive: boolean,
  cohortId: string | null,
) {
  const now = new Date();
  const rows = [...proIds].sort().map((proId) => ({ proId, restrictionActive, cohortId, updatedAt: now }));
  return db
    .insert(proRestrictionStatus)
    .values(rows)
    .onConflictDoUpdate({
      target: proRestrictionStatus.proId,
      set: {
        restrictionActive: sql`excluded.restriction_active`,
        cohortId: sql`excluded.cohort_id`,
        updatedAt: sql`excluded.updated_at`,
      },
    });
}

export async function listActivePros({ ctx }: HandlerArgs): Promise<ProStatus[]> {
  return ctx.db
    .select()
    .from(proRestrictionStatus)
    .where(eq(proRestrictionStatus.restrictionActive, true))
    .orderBy(asc(proRestrictionStatus.proId));
}

export async function getProStatus({ ctx, input }: HandlerArgs<{ proId: string }>): Promise<ProStatus | NoProStatus> {
  const [status] = await ctx.db
    .select()
    .from(proRestrictionStatus)
    .where(eq(proRestrictionStatus.proId, input.proId));
  return status ?? { proId: input.proId, restrictionActive: false };
}

/** One transaction: the pro must be registered; its status is locked, written, and the change audited. */
async function setProFlag(ctx: AuthedContext, proId: string, restrictionActive: boolean): Promise<ProStatus> {
  return ctx.db.transaction(async (tx) => {
    const [pro] = await tx.select({ id: pros.id }).from(pros).where(eq(pros.id, proId));
    if (!pro) throw notFound("Pro", proId);
    const statuses = await lockStatuses(tx, [proId]);
    const [status] = await upsertRestriction(tx, [proId], restrictionActive, null).returning();
    const event = {
      id: newAuditEventId(),
      action: restrictionActive ? "pro.activate" : "pro.rollback",
      target: { type: "pro", id: proId },
      before: statuses.get(proId) ?? null,
      after: status,
    } as const;
    await recordFlagChanges(tx, auditSource(ctx), event, { proIds: [proId], restrictionActive, before: statuses, via: "pro", cohortId: null });
    return status!;
  });
}

export const activatePro = ({ ctx, input }: HandlerArgs<{ proId: string }>) => setProFlag(ctx, input.proId, true);
export const rollbackPro = ({ ctx, input }: HandlerArgs<{ proId: string }>) => setProFlag(ctx, input.proId, false);
