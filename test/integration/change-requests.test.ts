// Four-eyes approval (docs/api.md#four-eyes-approval) with APPROVALS=required: activation only through a
// change request another admin approves; the approval applies only the impact that was reviewed; the
// emergency rollback; expiry; every step audited.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { changeRequests, proRestrictionStatus, pros } from "../../db/schema/index.js";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { auditMark } from "../helpers/audit.js";
import { expectAppError } from "../helpers/caller-expect.js";
import { insertChangeRequest, OTHER_ADMIN } from "../helpers/change-requests.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";

describe("four-eyes approval (APPROVALS=required)", () => {
  const t = useTestApp({ approvals: "required" });

  async function setup(proCount = 2) {
    const requester = await t().signUp({ admin: true });
    const approver = await t().signUp({ admin: true });
    const proIds = newProIds(proCount);
    await t()
      .db.db.insert(pros)
      .values(proIds.map((id) => ({ id, name: id })));
    const a = t().caller(requester).restriction;
    const cohort = await a.createCohort({ cohortNumber: uniqueCohortNumber(), proIds });
    await a.checkGates({ id: cohort.id, ...PASSING_GATES });
    return { requester, approver, proIds, cohort, a, b: t().caller(approver).restriction };
  }

  it("refuses direct activation; a second admin's approval applies the reviewed change, audited with both admins", async () => {
    const { requester, approver, proIds, cohort, a, b } = await setup();
    await expectAppError(a.activateCohort({ id: cohort.id }), "CONFLICT", "Approval required: create a change request");
    const mark = await auditMark(t().db.db);
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate", reason: "gates passed" });
    expect(changeRequest).toMatchObject({
      status: "pending",
      cohortNumber: cohort.cohortNumber,
      requestedBy: { id: requester.id },
      decidedBy: null,
    });
    expect(changeRequest.preview!.turnOn.sort()).toEqual([...proIds].sort());
    await expectAppError(a.createChangeRequest({ id: cohort.id, action: "activate" }), "CONFLICT");
    await expectAppError(a.approveChangeRequest({ id: changeRequest.id }), "FORBIDDEN", "A change request needs a second admin");

    const approved = await b.approveChangeRequest({ id: changeRequest.id, comment: "looks right" });
    expect(approved.changeRequest).toMatchObject({
      status: "applied",
      decidedBy: { id: approver.id },
      comment: "looks right",
      appliedAt: expect.any(Date),
    });
    expect((await b.listCohorts()).find((c) => c.id === cohort.id)?.status).toBe("active");
    const events = await mark.since();
    expect(events.map((e) => [e.action, e.actor.id])).toEqual([
      ["change_request.create", requester.id],
      ["cohort.activate", approver.id],
      ["change_request.approve", approver.id],
    ]);
    expect(events[1]!.details).toEqual({ changeRequestId: changeRequest.id, requestedBy: { id: requester.id, email: requester.email } });
    await expectAppError(b.approveChangeRequest({ id: changeRequest.id }), "CONFLICT");
  });

  it("applies nothing when the impact changed since the request: the request is stale (409)", async () => {
    const { proIds, cohort, a, b } = await setup(3);
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate" });
    // Another change switches one of its pros on in between (per pro, activation itself needs approval now).
    await t().db.db.insert(proRestrictionStatus).values({ proId: proIds[0]!, restrictionActive: true });
    await expectAppError(b.approveChangeRequest({ id: changeRequest.id }), "CONFLICT");
    expect((await b.getChangeRequest({ id: changeRequest.id })).changeRequest.status).toBe("stale");
    expect((await b.listCohorts()).find((c) => c.id === cohort.id)?.status).toBe("pending");
    const flags = await t().db.db.select().from(proRestrictionStatus).where(eq(proRestrictionStatus.proId, proIds[1]!));
    expect(flags).toEqual([]);
    // A new request may be made, with the impact as it is now.
    const again = await a.createChangeRequest({ id: cohort.id, action: "activate" });
    expect(again.changeRequest.preview!.turnOn).toHaveLength(2);
  });

  it("two admins approving at once apply it once", async () => {
    const { cohort, a, b } = await setup();
    const third = t().caller(await t().signUp({ admin: true })).restriction;
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate" });
    const outcomes = await Promise.allSettled([
      b.approveChangeRequest({ id: changeRequest.id }),
      third.approveChangeRequest({ id: changeRequest.id }),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const history = await a.proHistory({ proId: cohort.proIds[0]! });
    expect(history.changes).toHaveLength(1);
  });

  it("a blocked activation answers as without approval and leaves the request pending", async () => {
    const requester = await t().signUp({ admin: true });
    const b = t().caller(await t().signUp({ admin: true })).restriction;
    const a = t().caller(requester).restriction;
    const cohort = await a.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) });
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate" });
    await expectAppError(b.approveChangeRequest({ id: changeRequest.id }), "VALIDATION_ERROR");
    expect((await b.getChangeRequest({ id: changeRequest.id })).changeRequest.status).toBe("pending");
  });

  it("reject needs another admin and a comment; cancel is the requester's; a decided request cannot be decided again", async () => {
    const { cohort, a, b } = await setup();
    const first = (await a.createChangeRequest({ id: cohort.id, action: "activate" })).changeRequest;
    await expectAppError(a.rejectChangeRequest({ id: first.id, comment: "no" }), "FORBIDDEN");
    expect((await b.rejectChangeRequest({ id: first.id, comment: "wait for legal" })).changeRequest).toMatchObject({
      status: "rejected",
      comment: "wait for legal",
    });
    const second = (await a.createChangeRequest({ id: cohort.id, action: "activate" })).changeRequest;
    await expectAppError(b.cancelChangeRequest({ id: second.id }), "FORBIDDEN");
    expect((await a.cancelChangeRequest({ id: second.id })).changeRequest.status).toBe("cancelled");
    await expectAppError(b.approveChangeRequest({ id: second.id }), "CONFLICT");
    expect((await b.listChangeRequests({ cohortId: cohort.id })).changeRequests.map((r) => r.status)).toEqual(["cancelled", "rejected"]);
  });

  it("a request pending for 72 hours is expired: it cannot be approved, and a new one may be made", async () => {
    const { cohort, b, requester } = await setup();
    const id = await insertChangeRequest(t().db.db, {
      cohortId: cohort.id,
      action: "activate",
      requestedBy: { id: requester.id, email: requester.email },
      requestedAt: new Date(Date.now() - 73 * 3_600_000),
    });
    expect((await b.getChangeRequest({ id })).changeRequest.status).toBe("expired");
    expect((await b.listChangeRequests({ status: "expired" })).changeRequests.map((r) => r.id)).toContain(id);
    await expectAppError(b.approveChangeRequest({ id }), "CONFLICT");
    const fresh = await t().caller(requester).restriction.createChangeRequest({ id: cohort.id, action: "activate" });
    expect(fresh.changeRequest.status).toBe("pending");
    const [stored] = await t().db.db.select().from(changeRequests).where(eq(changeRequests.id, id));
    expect(stored!.status).toBe("expired");
  });

  it("an emergency rollback goes ahead at once with a written reason, audited as bypassing approval", async () => {
    const { cohort, a, b } = await setup();
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate" });
    await b.approveChangeRequest({ id: changeRequest.id });
    await expectAppError(a.rollbackCohort({ id: cohort.id, reason: "too short" }), "VALIDATION_ERROR");
    await expectAppError(a.rollbackCohort({ id: cohort.id }), "VALIDATION_ERROR");
    const mark = await auditMark(t().db.db);
    const rolledBack = await a.rollbackCohort({ id: cohort.id, reason: "complaints from pros all morning" });
    expect(rolledBack.status).toBe("rolled_back");
    const [event] = await mark.since();
    expect(event).toMatchObject({
      action: "cohort.rollback",
      reason: "complaints from pros all morning",
      details: { approvalBypassed: true },
    });
  });

  it("a request by someone else is approved by any other admin, over REST too", async () => {
    const { cohort, approver } = await setup();
    const id = await insertChangeRequest(t().db.db, { cohortId: cohort.id, action: "activate", requestedBy: OTHER_ADMIN });
    const res = await t().app.inject({
      method: "POST",
      url: `/api/admin/restriction/change-requests/${id}/approve`,
      headers: approver.headers,
      payload: { comment: "ok" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.changeRequest.status).toBe("applied");
  });
});
