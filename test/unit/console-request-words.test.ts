// The console's words for a change request (docs/api.md#four-eyes-approval): a cohort's, one pro's and an
// admin grant each read as what they ask, in the Approvals view and in the audit log.
import { describe, expect, test } from "vitest";
import { describeChange } from "../../console/src/auditChange.js";
import { approveLabel, describeRequest, subjectOf } from "../../console/src/views/changeRequests.js";

const none = { cohortId: null, cohortNumber: null, proId: null, userId: null, userEmail: null };
const cohort = { ...none, cohortId: "c-1", cohortNumber: 7, action: "rollback" as const };
const pro = { ...none, proId: "pro 1", action: "activate" as const };
const grant = { ...none, userId: "u-1", userEmail: "new@example.com", action: "grant-admin" as const };

describe("a change request in words", () => {
  test("what it is about and where the console shows it", () => {
    expect(subjectOf(cohort)).toEqual({ label: "Cohort 7", href: "/cohorts/c-1" });
    expect(subjectOf(pro)).toEqual({ label: "Pro pro 1", href: "/pros/pro%201" });
    expect(subjectOf(grant)).toEqual({ label: "User new@example.com", href: null });
  });

  test("its title and its approve button", () => {
    expect([cohort, pro, grant].map(describeRequest)).toEqual([
      "Rollback of cohort 7",
      "Activation of pro pro 1",
      "Admin role for new@example.com",
    ]);
    expect([cohort, pro, grant].map(approveLabel)).toEqual([
      "Approve and roll back",
      "Approve and switch on",
      "Approve and grant the admin role",
    ]);
  });

  test("its audit event", () => {
    expect(describeChange({ action: "change_request.create", before: null, after: { ...grant, preview: null } })).toEqual([
      "asks to grant the admin role to new@example.com",
    ]);
    const preview = { turnOn: ["pro 1"], turnOff: [], unchanged: [] };
    expect(describeChange({ action: "change_request.create", before: null, after: { ...pro, preview } })).toEqual([
      "asks to activate pro pro 1",
      "impact then: 1 on, 0 off, 0 unchanged",
    ]);
  });
});
