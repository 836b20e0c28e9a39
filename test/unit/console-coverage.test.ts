// An active cohort's pros that are off, summed up by cause for the cohort list (console/src/coverage.ts).
import { describe, expect, test } from "vitest";
import { type Coverage, causeOf, offCauses } from "../../console/src/coverage.js";

const actor = { id: "u1", email: "olivia@example.com" };
const at = new Date("2026-11-24T10:00:00Z");
const byCohort = (cohortNumber: number) => ({
  at,
  via: "cohort" as const,
  cohortId: `c${cohortNumber}`,
  cohortNumber,
  action: "cohort.rollback" as const,
  reason: null,
  actor,
  auditEventId: "e1",
});
const perPro = { ...byCohort(0), via: "pro" as const, cohortId: null, cohortNumber: null, action: "pro.rollback" as const };

describe("offCauses", () => {
  test("groups the pros that are off by what switched them off, the largest group first", () => {
    const coverage: Coverage = {
      cohortId: "c8",
      status: "active",
      restricted: 15,
      notRestricted: [
        { proId: "p1", turnedOffBy: perPro },
        { proId: "p2", turnedOffBy: byCohort(7) },
        { proId: "p3", turnedOffBy: byCohort(7) },
        { proId: "p4", turnedOffBy: byCohort(3) },
        { proId: "p5", turnedOffBy: null },
      ],
    };
    expect(offCauses(coverage)).toEqual([
      { cause: "cohort 7's rollback", count: 2 },
      { cause: "a per-pro rollback", count: 1 },
      { cause: "cohort 3's rollback", count: 1 },
      { cause: "never set", count: 1 },
    ]);
  });

  test("a whole cohort has no cause", () => {
    expect(offCauses({ cohortId: "c", status: "active", restricted: 3, notRestricted: [] })).toEqual([]);
  });
});

describe("causeOf", () => {
  test("names a cohort by number, by id when the change lacks it", () => {
    expect(causeOf(byCohort(7))).toBe("cohort 7's rollback");
    expect(causeOf({ ...byCohort(7), cohortNumber: null })).toBe("cohort c7's rollback");
  });
});
