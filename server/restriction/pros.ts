// Per-pro restriction flags: read, list the active ones, and the opt-in / ops-override switch (behind a change
// request while approvals are required; a rollback never waits).
import { asc, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.js";
import { preparedFor } from "../../db/prepared.js";
import { proRestrictionStatus, pros } from "../../db/schema/index.js";
import type { NoProStatus, ProStatus, StoredFlag } from "../../db/schema/restriction-values.js";
import { type AuditSource, auditSource, newAuditEventId, recordAudit } from "../audit/record.js";
import type { AuthedContext, HandlerArgs } from "../context.js";
import { AppError, notFound } from "../errors/errors.js";
import type { NowOrLater } from "../http/now-or-later.js";
import type { FlagMemory } from "../memory/flags.js";
import { countMemoryRead } from "../observability/metrics.js";
import { lockStatuses, writeFlags } from "./flags.js";
import type { Impact } from "./impact.js";
import { impactOfProActivation } from "./pro-impact.js";

export type { NoProStatus, ProStatus };

/** A per-pro change's impact: a cohort's shape, with no cohort. */
export type ProImpact = Omit<Impact, "cohortId"> & { cohortId: null };

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

/**
 * One pro's stored status (undefined when it has none): from this instance's memory when it can vouch for it
 * (server/memory/flags.ts), then at once and not as a promise (every OFREP evaluation asks; issue AE); from the
 * database otherwise.
 */
export function storedStatus(db: Db, memory: FlagMemory | undefined, proId: string): NowOrLater<ProStatus | undefined> {
  const remembered = memory?.status(proId);
  return remembered === undefined ? storedStatusInTable(db, memory, proId) : fromMemory(remembered);
}

/** What an OFREP evaluation reads of one pro's stored status: as `storedStatus`, without copying memory's. */
export function storedFlag(db: Db, memory: FlagMemory | undefined, proId: string): NowOrLater<StoredFlag | undefined> {
  const remembered = memory?.flag(proId);
  return remembered === undefined ? storedStatusInTable(db, memory, proId) : fromMemory(remembered);
}

function fromMemory<T>(remembered: T | null): T | undefined {
  countMemoryRead("pro_status", "memory");
  return remembered ?? undefined;
}

async function storedStatusInTable(db: Db, memory: FlagMemory | undefined, proId: string): Promise<ProStatus | undefined> {
  if (memory) countMemoryRead("pro_status", "database");
  const [status] = await proStatusStatement(db).execute({ proId });
  return status;
}

export async function getProStatus({ ctx, input }: HandlerArgs<{ proId: string }>): Promise<ProStatus | NoProStatus> {
  return (await storedStatus(ctx.db, ctx.flags, input.proId)) ?? { proId: input.proId, restrictionActive: false };
}

/** The pro, registered (404 otherwise): a flag is only ever set per pro for a pro the service knows. */
async function registered(tx: DbOrTx, proId: string): Promise<void> {
  const [pro] = await tx.select({ id: pros.id }).from(pros).where(eq(pros.id, proId));
  if (!pro) throw notFound("Pro", proId);
}

/**
 * In the caller's transaction: locks the pro's status, writes the flag with its history, and records the
 * audit event (`details`: what the change came with, e.g. the change request an approval applied).
 */
export async function applyProFlag(
  tx: DbOrTx,
  source: AuditSource,
  change: { proId: string; restrictionActive: boolean; details?: Record<string, unknown> | null },
): Promise<ProStatus> {
  const { proId, restrictionActive } = change;
  await registered(tx, proId);
  const auditEventId = newAuditEventId();
  const before = (await lockStatuses(tx, [proId])).get(proId) ?? null;
  await writeFlags(tx, { proIds: [proId], restrictionActive, via: "pro", cohortId: null, auditEventId });
  const [after] = await tx.select().from(proRestrictionStatus).where(eq(proRestrictionStatus.proId, proId));
  await recordAudit(tx, source, {
    id: auditEventId,
    action: restrictionActive ? "pro.activate" : "pro.rollback",
    target: { type: "pro", id: proId },
    before,
    after,
    details: change.details ?? null,
  });
  return after!;
}

/**
 * What activating one pro would do (the preview a per-pro change request keeps, in the shape of a cohort's):
 * switch it on, or nothing when it is on already. Locks the pro's status when `lock` is set (an approval
 * compares this with the preview reviewed, and applies it, under that lock). 404 for an unregistered pro.
 */
export async function proActivationImpact(tx: DbOrTx, proId: string, lock = false): Promise<ProImpact> {
  await registered(tx, proId);
  const stored = lock
    ? (await lockStatuses(tx, [proId])).get(proId)
    : (await tx.select().from(proRestrictionStatus).where(eq(proRestrictionStatus.proId, proId)))[0];
  return impactOfProActivation(proId, stored?.restrictionActive ?? false);
}

const setProFlag = (ctx: AuthedContext, proId: string, restrictionActive: boolean, details: Record<string, unknown> | null = null) =>
  ctx.db.transaction((tx) => applyProFlag(tx, auditSource(ctx), { proId, restrictionActive, details }));

/** Switches one pro on; with APPROVALS required only through an approved change request (409 here). */
export async function activatePro({ ctx, input }: HandlerArgs<{ proId: string }>): Promise<ProStatus> {
  if (ctx.approvals === "required") throw new AppError("CONFLICT", "Approval required: create a change request");
  return setProFlag(ctx, input.proId, true);
}

/** Switches one pro off at once: with APPROVALS required an emergency never waits, audited as bypassing approval. */
export const rollbackPro = ({ ctx, input }: HandlerArgs<{ proId: string }>) =>
  setProFlag(ctx, input.proId, false, ctx.approvals === "required" ? { approvalBypassed: true } : null);
