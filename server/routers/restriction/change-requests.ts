// Four-eyes approval of cohort changes (docs/api.md#four-eyes-approval): one admin requests an activation or
// rollback with the impact preview as it is then; another approves, and the approval applies the change in
// its own transaction only when the impact is still the one reviewed (else the request is stale).
import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../../../db/client.js";
import { sqlState } from "../../../db/errors.js";
import { changeRequests, restrictionCohorts } from "../../../db/schema/index.js";
import { CHANGE_REQUEST_TTL_HOURS, type ChangeRequestStatus } from "../../../db/schema/restriction-values.js";
import { auditSource, recordAudit } from "../../audit/record.js";
import { AppError, forbidden, notFound } from "../../errors/errors.js";
import { type AuthedContext, type HandlerArgs, isUuid } from "../types.js";
import { applyCohortChange, lockCohort } from "./cohorts.js";
import { type Impact, sameImpact } from "./impact.js";
import { impactNow } from "./preview.js";
import type { ChangeRequestDecisionInput, CreateChangeRequestInput, ListChangeRequestsInput } from "./schemas.js";

/** A pending request past its 72 hours is expired, whether or not anyone has looked at it since. */
const effectiveStatus = sql<ChangeRequestStatus>`(case when ${changeRequests.status} = 'pending'
  and ${changeRequests.requestedAt} < now() - make_interval(hours => ${CHANGE_REQUEST_TTL_HOURS}) then 'expired' else ${changeRequests.status} end)`;

const columns = { request: changeRequests, cohortNumber: restrictionCohorts.cohortNumber, status: effectiveStatus };

type Row = { request: typeof changeRequests.$inferSelect; cohortNumber: number; status: ChangeRequestStatus };

export type ChangeRequestView = {
  id: string;
  cohortId: string;
  cohortNumber: number;
  action: "activate" | "rollback";
  reason: string | null;
  status: ChangeRequestStatus;
  requestedBy: { id: string; email: string };
  requestedAt: Date;
  preview: Impact;
  decidedBy: { id: string; email: string } | null;
  decidedAt: Date | null;
  comment: string | null;
  appliedAt: Date | null;
};

const toView = ({ request: r, cohortNumber, status }: Row): ChangeRequestView => ({
  id: r.id,
  cohortId: r.cohortId,
  cohortNumber,
  action: r.action,
  reason: r.reason,
  status,
  requestedBy: { id: r.requestedById, email: r.requestedByEmail },
  requestedAt: r.requestedAt,
  preview: r.preview as Impact,
  decidedBy: r.decidedById ? { id: r.decidedById, email: r.decidedByEmail ?? "" } : null,
  decidedAt: r.decidedAt,
  comment: r.comment,
  appliedAt: r.appliedAt,
});

function select(db: DbOrTx, where: SQL | undefined) {
  return db
    .select(columns)
    .from(changeRequests)
    .innerJoin(restrictionCohorts, eq(restrictionCohorts.id, changeRequests.cohortId))
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

export async function createChangeRequest({
  ctx,
  input,
}: HandlerArgs<CreateChangeRequestInput>): Promise<{ changeRequest: ChangeRequestView }> {
  if (!isUuid(input.id)) throw notFound("Cohort", input.id);
  try {
    return await ctx.db.transaction(async (tx) => {
      const preview = await impactNow(tx, input.id, input.action);
      // An expired request no longer holds the cohort's one pending place.
      await tx
        .update(changeRequests)
        .set({ status: "expired" })
        .where(and(eq(changeRequests.cohortId, input.id), eq(changeRequests.action, input.action), eq(effectiveStatus, "expired")));
      const [created] = await tx
        .insert(changeRequests)
        .values({
          cohortId: input.id,
          action: input.action,
          reason: textOrNull(input.reason),
          requestedById: ctx.user.id,
          requestedByEmail: ctx.user.email,
          preview,
        })
        .returning({ id: changeRequests.id });
      const changeRequest = toView(await findRequest(tx, created!.id));
      await recordAudit(tx, auditSource(ctx), {
        action: "change_request.create",
        target: { type: "change_request", id: changeRequest.id },
        before: null,
        after: changeRequest,
        reason: changeRequest.reason,
      });
      return { changeRequest };
    });
  } catch (err) {
    if (sqlState(err) === "23505") {
      throw new AppError("CONFLICT", `Cohort ${input.id} already has a pending ${input.action} request: decide or cancel it first`);
    }
    throw err;
  }
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
 * A decision is a second admin's own: an impersonation session is the admin behind it acting as someone
 * else, so it would let one admin approve their own request through an account they made an admin.
 */
function refuseImpersonation(ctx: AuthedContext): void {
  if (ctx.session.impersonatedBy) throw forbidden("An impersonation session cannot approve or reject a change request");
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
 * Applies the request in one transaction: the approver is not the requester; the cohort is locked, the
 * impact read again and compared with the one reviewed: the same, the change is applied (its audit event
 * names the approver as actor, with the request and its requester); different, nothing is applied and the
 * request is stale (409). A blocked activation answers as without approval and leaves the request pending.
 */
export async function approveChangeRequest({
  ctx,
  input,
}: HandlerArgs<ChangeRequestDecisionInput>): Promise<{ changeRequest: ChangeRequestView }> {
  const outcome = await ctx.db.transaction(async (tx) => {
    refuseImpersonation(ctx);
    const row = await pendingRequest(tx, input.id);
    if (row.request.requestedById === ctx.user.id) throw forbidden("A change request needs a second admin");
    const { cohortId, action } = row.request;
    await lockCohort(tx, cohortId);
    // Compared under the pros' row locks: a per-pro change in flight is waited for, then counted.
    const now = await impactNow(tx, cohortId, action, { lockPros: true });
    const comment = textOrNull(input.comment);
    if (!sameImpact(row.request.preview as Impact, now))
      return { stale: true, changeRequest: await decide(tx, ctx, row, "stale", comment, false) };
    await applyCohortChange(tx, auditSource(ctx), {
      id: cohortId,
      action: action === "activate" ? "cohort.activate" : "cohort.rollback",
      reason: action === "rollback" ? row.request.reason : null,
      details: { changeRequestId: row.request.id, requestedBy: { id: row.request.requestedById, email: row.request.requestedByEmail } },
    });
    return { stale: false, changeRequest: await decide(tx, ctx, row, "applied", comment, true) };
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
    refuseImpersonation(ctx);
    const row = await pendingRequest(tx, input.id);
    if (row.request.requestedById === ctx.user.id)
      throw forbidden("A change request is rejected by a second admin; cancel your own instead");
    return { changeRequest: await decide(tx, ctx, row, "rejected", textOrNull(input.comment), false) };
  });
}

export async function cancelChangeRequest({ ctx, input }: HandlerArgs<{ id: string }>): Promise<{ changeRequest: ChangeRequestView }> {
  return ctx.db.transaction(async (tx) => {
    const row = await pendingRequest(tx, input.id);
    if (row.request.requestedById !== ctx.user.id) throw forbidden("Only the admin who made a change request can cancel it");
    return { changeRequest: await decide(tx, ctx, row, "cancelled", null, false) };
  });
}
