// Per-pro restriction flags: read, list the active ones, and the ungated opt-in / ops-override switch.
import { asc, eq, sql } from "drizzle-orm";
import { preparedFor } from "../../../db/prepared.js";
import { proRestrictionStatus, pros } from "../../../db/schema/index.js";
import { auditSource, newAuditEventId, recordAudit } from "../../audit/record.js";
import { notFound } from "../../errors/errors.js";
import type { AuthedContext, HandlerArgs } from "../types.js";
import { lockStatuses, writeFlags } from "./flags.js";

export type ProStatus = {
  proId: string;
  restrictionActive: boolean;
  /** The cohort whose activation or rollback set the flag; null when set per pro. */
  cohortId: string | null;
  updatedAt: Date;
};

/** A pro with no stored status: exactly these two keys (docs/api.md#pro-status). */
export type NoProStatus = { proId: string; restrictionActive: false };

export async function listActivePros({ ctx }: HandlerArgs): Promise<ProStatus[]> {
  return ctx.db
    .select()
    .from(proRestrictionStatus)
    .where(eq(proRestrictionStatus.restrictionActive, true))
    .orderBy(asc(proRestrictionStatus.proId));
}

/** One pro's stored status: the admin lookup and OFREP's evaluation (server/ofrep/routes.ts). */
export const proStatusStatement = preparedFor((db) =>
  db
    .select()
    .from(proRestrictionStatus)
    .where(eq(proRestrictionStatus.proId, sql.placeholder("proId")))
    .prepare("pro_status"),
);

export async function getProStatus({ ctx, input }: HandlerArgs<{ proId: string }>): Promise<ProStatus | NoProStatus> {
  const [status] = await proStatusStatement(ctx.db).execute({ proId: input.proId });
  return status ?? { proId: input.proId, restrictionActive: false };
}

/** One transaction: the pro must be registered; its status is locked, written with its history, and audited. */
async function setProFlag(ctx: AuthedContext, proId: string, restrictionActive: boolean): Promise<ProStatus> {
  return ctx.db.transaction(async (tx) => {
    const [pro] = await tx.select({ id: pros.id }).from(pros).where(eq(pros.id, proId));
    if (!pro) throw notFound("Pro", proId);
    const auditEventId = newAuditEventId();
    const before = (await lockStatuses(tx, [proId])).get(proId) ?? null;
    await writeFlags(tx, { proIds: [proId], restrictionActive, via: "pro", cohortId: null, auditEventId });
    const [after] = await tx.select().from(proRestrictionStatus).where(eq(proRestrictionStatus.proId, proId));
    await recordAudit(tx, auditSource(ctx), {
      id: auditEventId,
      action: restrictionActive ? "pro.activate" : "pro.rollback",
      target: { type: "pro", id: proId },
      before,
      after,
    });
    return after!;
  });
}

export const activatePro = ({ ctx, input }: HandlerArgs<{ proId: string }>) => setProFlag(ctx, input.proId, true);
export const rollbackPro = ({ ctx, input }: HandlerArgs<{ proId: string }>) => setProFlag(ctx, input.proId, false);
