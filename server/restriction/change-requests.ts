// Four-eyes approval (docs/api.md#four-eyes-approval): one admin requests a cohort's activation or rollback,
// one pro's activation, or the admin role for a user, with the impact preview as it is then; another
// approves, and the approval applies the change in its own transaction only when the impact is still the one
// reviewed (else the request is stale).
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.js";
import { sqlState } from "../../db/errors.js";
import { auditEvents, changeRequests, restrictionCohorts, users } from "../../db/schema/index.js";
import { CHANGE_REQUEST_TTL_HOURS, type ChangeRequestAction, type ChangeRequestStatus } from "../../db/schema/restriction-values.js";
import { refuseImpersonation } from "../accounts/acting.js";
import { samePerson } from "../accounts/control.js";
import { identityDigest } from "../accounts/identity.js";
import { changeRole } from "../accounts/role.js";
import { isActingAdmin } from "../accounts/rules.js";
import { type AuditSource, auditSource, recordAudit } from "../audit/record.js";
import type { AuthedContext, HandlerArgs } from "../context.js";
import { AppError, forbidden, notFound } from "../errors/errors.js";
import { isUuid } from "../http/text.js";
import { applyCohortChange, lockCohort } from "./cohorts.js";
import { type Impact, sameImpact } from "./impact.js";
import { impactNow } from "./preview.js";
import { applyProFlag, type ProImpact, proActivationImpact } from "./pros.js";
import type {
  ChangeRequestDecisionInput,
  CreateChangeRequestInput,
  CreateProChangeRequestInput,
  ListChangeRequestsInput,
} from "./schemas.js";

/** A pending request past its 72 hours is expired, whether or not anyone has looked at it since. */
const effectiveStatus = sql<ChangeRequestStatus>`(case when ${changeRequests.status} = 'pending'
  and ${changeRequests.requestedAt} < now() - make_interval(hours => ${CHANGE_REQUEST_TTL_HOURS}) then 'expired' else ${changeRequests.status} end)`;

const columns = { request: changeRequests, cohortNumber: restrictionCohorts.cohortNumber, status: effectiveStatus };

type Row = { request: typeof changeRequests.$inferSelect; cohortNumber: number | null; status: ChangeRequestStatus };

export type ChangeRequestView = {
  id: string;
  /** What the request is about: a cohort, one pro, or (grant-admin) a user. */
  cohortId: string | null;
  cohortNumber: number | null;
  proId: string | null;
  userId: string | null;
  userEmail: string | null;
  action: ChangeRequestAction;
  reason: string | null;
  status: ChangeRequestStatus;
  requestedBy: { id: string; email: string };
  requestedAt: Date;
  /** null for grant-admin. */
  preview: Impact | ProImpact | null;
  decidedBy: { id: string; email: string } | null;
  decidedAt: Date | null;
  comment: string | null;
  appliedAt: Date | null;
};

const toView = ({ request: r, cohortNumber, status }: Row): ChangeRequestView => ({
  id: r.id,
  cohortId: r.cohortId,
  cohortNumber,
  proId: r.proId,
  userId: r.userId,
  userEmail: r.userEmail,
  action: r.action,
  reason: r.reason,
  status,
  requestedBy: { id: r.requestedById, email: r.requestedByEmail },
  requestedAt: r.requestedAt,
  preview: r.preview as Impact | ProImpact | null,
  decidedBy: r.decidedById ? { id: r.decidedById, email: r.decidedByEmail ?? "" } : null,
  decidedAt: r.decidedAt,
  comment: r.comment,
  appliedAt: r.appliedAt,
});

function select(db: DbOrTx, where: SQL | undefined) {
  return db
    .select(columns)
    .from(changeRequests)
    .leftJoin(restrictionCohorts, eq(restrictionCohorts.id, changeRequests.cohortId))
    .where(where);
}

async function findRequest(db: DbOrTx, id: string, lock = false): Promise<Row> {
  if (!isUuid(id)) throw new AppError("NOT_FOUND", `Change request ${id} not found`);
  const query = select(db, eq(changeRequests.id, id));
  const [row] = await (lock ? query.for("update", { of: changeRequests }) : query);
  if (!row) throw new AppError("NOT_FOUND", `Change request ${id} not found`);
  return row;
}

const textOrNull = (text: string | null | undefined) => (text?.trim() ? text : null);

/** What a change request is about, and what is asked: exactly one target. */
export type ChangeRequestTarget =
  | { cohortId: string; action: "activate" | "rollback" }
  | { proId: string; action: "activate" }
  | { userId: string; userEmail: string; action: "grant-admin" };

const targetColumn = (target: ChangeRequestTarget) =>
  "cohortId" in target
    ? eq(changeRequests.cohortId, target.cohortId)
    : "proId" in target
      ? eq(changeRequests.proId, target.proId)
      : eq(changeRequests.userId, target.userId);

const targetName = (target: ChangeRequestTarget) =>
  "cohortId" in target ? `Cohort ${target.cohortId}` : "proId" in target ? `Pro ${target.proId}` : `User ${target.userId}`;

/**
 * Files a pending request in the caller's transaction, with its preview (null for grant-admin), and audits
 * it; 409 when the target already has a pending request for that action.
 */
export async function fileChangeRequest(
  tx: DbOrTx,
  source: AuditSource,
  request: { target: ChangeRequestTarget; reason: string | null; preview: Impact | ProImpact | null; targetIdentity?: string | null },
): Promise<ChangeRequestView> {
  const { target } = request;
  refuseImpersonation(source, "file a change request");
  // An expired request no longer holds the target's one pending place. A duplicate's error (23505) ends the
  // caller's transaction, which rolls back with it.
  await tx
    .update(changeRequests)
    .set({ status: "expired" })
    .where(and(targetColumn(target), eq(changeRequests.action, target.action), eq(effectiveStatus, "expired")));
  try {
    const [created] = await tx
      .insert(changeRequests)
      .values({
        ...target,
        reason: textOrNull(request.reason),
        requestedById: source.actor.id,
        requestedByEmail: source.actor.email,
        preview: request.preview,
        targetIdentity: request.targetIdentity ?? null,
      })
      .returning({ id: changeRequests.id });
    const changeRequest = toView(await findRequest(tx, created!.id));
    await recordAudit(tx, source, {
      action: "change_request.create",
      target: { type: "change_request", id: changeRequest.id },
      before: null,
      after: changeRequest,
      reason: changeRequest.reason,
    });
    return changeRequest;
  } catch (err) {
    if (sqlState(err) === "23505") {
      throw new AppError("CONFLICT", `${targetName(target)} already has a pending ${target.action} request: decide or cancel it first`);
    }
    throw err;
  }
}

export async function createChangeRequest({
  ctx,
  input,
}: HandlerArgs<CreateChangeRequestInput>): Promise<{ changeRequest: ChangeRequestView }> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  return ctx.db.transaction(async (tx) => {
    const preview = await impactNow(tx, input.id, input.action);
    const target = { cohortId: input.id, action: input.action };
    return { changeRequest: await fileChangeRequest(tx, auditSource(ctx), { target, reason: input.reason ?? null, preview }) };
  });
}

/** One pro's activation, asked for (docs/api.md#four-eyes-approval); 404 for an unregistered pro. */
export async function createProChangeRequest({
  ctx,
  input,
}: HandlerArgs<CreateProChangeRequestInput>): Promise<{ changeRequest: ChangeRequestView }> {
  return ctx.db.transaction(async (tx) => {
    const preview = await proActivationImpact(tx, input.proId);
    const target = { proId: input.proId, action: input.action };
    return { changeRequest: await fileChangeRequest(tx, auditSource(ctx), { target, reason: input.reason ?? null, preview }) };
  });
}

export async function listChangeRequests({
  ctx,
  input,
}: HandlerArgs<ListChangeRequestsInput>): Promise<{ changeRequests: ChangeRequestView[] }> {
  // An id that is not a UUID names no cohort: no requests.
  if (input.cohortId !== undefined && !isUuid(input.cohortId)) return { changeRequests: [] };
  const where = [
    input.status ? eq(effectiveStatus, input.status) : undefined,
    input.cohortId ? eq(changeRequests.cohortId, input.cohortId) : undefined,
  ];
  const rows = await select(ctx.db, and(...where.filter((w) => w !== undefined))).orderBy(
    desc(changeRequests.requestedAt),
    desc(changeRequests.id),
  );
  return { changeRequests: rows.map(toView) };
}

export async function getChangeRequest({ ctx, input }: HandlerArgs<{ id: string }>): Promise<{ changeRequest: ChangeRequestView }> {
  return { changeRequest: toView(await findRequest(ctx.db, input.id)) };
}

/**
 * The approver must be a second person (CONTRACT part five): not the requester, not the admin behind an
 * impersonation session the request was filed from, and sharing nobody who can act as both accounts (an
 * admin who chose either one's password, up the chain: server/accounts/control.ts). 403 otherwise.
 */
async function refuseSamePerson(tx: DbOrTx, approverId: string, request: typeof changeRequests.$inferSelect): Promise<void> {
  if (request.requestedById === approverId) throw forbidden("A change request needs a second admin");
  const [filed] = await tx
    .select({ impersonatorId: auditEvents.impersonatorId })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.action, "change_request.create"),
        eq(auditEvents.targetType, "change_request"),
        eq(auditEvents.targetId, request.id),
      ),
    );
  if (filed?.impersonatorId === approverId) throw forbidden("A change request needs a second admin: you filed it as this user");
  if (await samePerson(tx, approverId, request.requestedById)) {
    throw forbidden("A change request needs a second admin: one of you chose the other's password, so you count as one person");
  }
}

/**
 * A request applies only while its requester is still an admin who can act: one demoted, banned or removed
 * since no longer speaks for it (and, as an ordinary user, may even be impersonated by the approver). 409,
 * nothing written; the request can still be rejected, or it expires.
 */
async function refuseFormerAdmin(tx: DbOrTx, request: typeof changeRequests.$inferSelect): Promise<void> {
  const [requester] = await tx
    .select({ role: users.role, banned: users.banned, banExpires: users.banExpires })
    .from(users)
    .where(eq(users.id, request.requestedById));
  if (!requester || !isActingAdmin(requester, Date.now())) {
    throw new AppError(
      "CONFLICT",
      "The admin who made this request is no longer an admin: nothing was applied; another admin may ask again",
    );
  }
}

/** The request, locked, when it may still be decided: pending (409 otherwise). */
async function pendingRequest(tx: DbOrTx, id: string): Promise<Row> {
  const row = await findRequest(tx, id, true);
  if (row.status !== "pending") throw new AppError("CONFLICT", `This change request is ${row.status}: only a pending one can be decided`);
  return row;
}

async function decide(tx: DbOrTx, ctx: AuthedContext, row: Row, status: ChangeRequestStatus, comment: string | null, applied: boolean) {
  await tx
    .update(changeRequests)
    .set({
      status,
      decidedById: ctx.user.id,
      decidedByEmail: ctx.user.email,
      decidedAt: sql`now()`,
      comment,
      ...(applied ? { appliedAt: sql`now()` } : {}),
    })
    .where(eq(changeRequests.id, row.request.id));
  const after = toView(await findRequest(tx, row.request.id));
  const action =
    status === "rejected" ? "change_request.reject" : status === "cancelled" ? "change_request.cancel" : "change_request.approve";
  await recordAudit(tx, auditSource(ctx), {
    action,
    target: { type: "change_request", id: after.id },
    before: toView(row),
    after,
    reason: comment,
  });
  return after;
}

/**
 * Applies an approved request in the approver's transaction, when what it would change now is what was
 * reviewed; false (nothing applied) when not. The change's audit event names the approver as actor, with the
 * request and its requester.
 */
async function applyRequest(tx: DbOrTx, source: AuditSource, request: typeof changeRequests.$inferSelect): Promise<boolean> {
  const details = { changeRequestId: request.id, requestedBy: { id: request.requestedById, email: request.requestedByEmail } };
  const reviewed = request.preview as Impact | ProImpact | null;
  if (request.cohortId !== null) {
    const action = request.action === "rollback" ? "rollback" : "activate";
    await lockCohort(tx, request.cohortId);
    // Compared under the pros' row locks: a per-pro change in flight is waited for, then counted.
    if (!sameImpact(reviewed!, await impactNow(tx, request.cohortId, action, { lockPros: true }))) return false;
    await applyCohortChange(tx, source, {
      id: request.cohortId,
      action: action === "activate" ? "cohort.activate" : "cohort.rollback",
      reason: action === "rollback" ? request.reason : null,
      details,
    });
    return true;
  }
  if (request.proId !== null) {
    if (!sameImpact(reviewed!, await proActivationImpact(tx, request.proId, true))) return false;
    await applyProFlag(tx, source, { proId: request.proId, restrictionActive: true, details });
    return true;
  }
  // The account must still be the person the request named: same e-mail, creation and password.
  if (request.targetIdentity !== (await identityDigest(tx, request.userId!))) return false;
  const user = await changeRole(tx, source, request.userId!, "admin", details);
  return user !== null;
}

/**
 * Applies the request in one transaction: the approver is another admin in their own session; the target
 * is locked, the impact read again and compared with the one reviewed: the same, the change is applied
 * (applyRequest); different, nothing is applied and the request is stale (409). A blocked activation answers
 * as without approval and leaves the request pending.
 */
export async function approveChangeRequest({
  ctx,
  input,
}: HandlerArgs<ChangeRequestDecisionInput>): Promise<{ changeRequest: ChangeRequestView }> {
  const outcome = await ctx.db.transaction(async (tx) => {
    refuseImpersonation(auditSource(ctx), "approve a change request");
    const row = await pendingRequest(tx, input.id);
    await refuseSamePerson(tx, ctx.user.id, row.request);
    await refuseFormerAdmin(tx, row.request);
    const comment = textOrNull(input.comment);
    const applied = await applyRequest(tx, auditSource(ctx), row.request);
    return { stale: !applied, changeRequest: await decide(tx, ctx, row, applied ? "applied" : "stale", comment, applied) };
  });
  if (outcome.stale) {
    throw new AppError(
      "CONFLICT",
      "The impact changed since the request was made: nothing was applied and the request is stale; request again",
    );
  }
  return { changeRequest: outcome.changeRequest };
}

export async function rejectChangeRequest({
  ctx,
  input,
}: HandlerArgs<ChangeRequestDecisionInput>): Promise<{ changeRequest: ChangeRequestView }> {
  return ctx.db.transaction(async (tx) => {
    refuseImpersonation(auditSource(ctx), "reject a change request");
    const row = await pendingRequest(tx, input.id);
    if (row.request.requestedById === ctx.user.id)
      throw forbidden("A change request is rejected by a second admin; cancel your own instead");
    return { changeRequest: await decide(tx, ctx, row, "rejected", textOrNull(input.comment), false) };
  });
}

export async function cancelChangeRequest({ ctx, input }: HandlerArgs<{ id: string }>): Promise<{ changeRequest: ChangeRequestView }> {
  return ctx.db.transaction(async (tx) => {
    refuseImpersonation(auditSource(ctx), "cancel a change request");
    const row = await pendingRequest(tx, input.id);
    if (row.request.requestedById !== ctx.user.id) throw forbidden("Only the admin who made a change request can cancel it");
    return { changeRequest: await decide(tx, ctx, row, "cancelled", null, false) };
  });
}
