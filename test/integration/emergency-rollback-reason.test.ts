// docs/api.md#four-eyes-approval: while approvals are required, a cohort's rollback without a change request
// needs a written reason of at least 10 visible characters (letters, digits or punctuation). Characters a
// reader cannot see (zero-width spaces, other format or control characters, spaces) do not count, so ten
// zero-width spaces are refused (400, the field named) and change nothing, on tRPC and REST alike.
import { describe, expect, it } from "vitest";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { auditMark } from "../helpers/audit.js";
import { expectValidationError } from "../helpers/caller-expect.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";

const ZWSP = "\u200b";

describe("the emergency rollback's reason (APPROVALS=required)", () => {
  const t = useTestApp({ approvals: "required" });

  /** An active cohort (through a request and a second admin's approval), and its requester's procedures. */
  async function activeCohort() {
    const admin = await t().signUp({ admin: true });
    const a = t().caller(admin).restriction;
    const b = t().caller(await t().signUp({ admin: true })).restriction;
    const cohort = await a.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(2) });
    await a.checkGates({ id: cohort.id, ...PASSING_GATES });
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate" });
    await b.approveChangeRequest({ id: changeRequest.id });
    return { admin, a, cohort };
  }

  it.each([
    ["ten zero-width spaces", ZWSP.repeat(10)],
    ["nine letters padded with zero-width spaces and joiners", `abcdefghi${ZWSP.repeat(5)}\u200d\u2060`],
    ["nine letters and spaces, tabs and control characters", "a b c d e f g h i\t\u0001\u00a0\u3000"],
    ["a bidirectional override and soft hyphens around nine digits", "\u202e123456789\u00ad\u00ad"],
  ])("refuses %s, and rolls nothing back", async (_, reason) => {
    const { a, cohort } = await activeCohort();
    const mark = await auditMark(t().db.db);
    await expectValidationError(a.rollbackCohort({ id: cohort.id, reason }), "reason");
    expect((await a.listCohorts()).find((c) => c.id === cohort.id)?.status).toBe("active");
    expect(await mark.since()).toEqual([]);
  });

  it("refuses ten zero-width spaces over REST with the contract's envelope", async () => {
    const { admin, a, cohort } = await activeCohort();
    const res = await t().app.inject({
      method: "POST",
      url: `/api/admin/restriction/cohorts/${cohort.id}/rollback`,
      headers: admin.headers,
      payload: { reason: ZWSP.repeat(10) },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: "VALIDATION_ERROR", details: [{ field: "reason", message: expect.stringContaining("10 visible characters") }] },
    });
    expect((await a.listCohorts()).find((c) => c.id === cohort.id)?.status).toBe("active");
  });

  it("accepts ten visible characters in any script, with punctuation, however they are spaced", async () => {
    const { a, cohort } = await activeCohort();
    const reason = `${ZWSP}Störung: ${ZWSP}障害!!`; // 7 letters, 3 punctuation marks
    expect((await a.rollbackCohort({ id: cohort.id, reason })).status).toBe("rolled_back");
  });
});
