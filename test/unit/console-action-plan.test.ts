// The rollout path the console offers in each mode of the service (console/src/actionPlan.ts): with
// approvals required an activation is only requested and a rollback is direct with a required reason that
// the console counts exactly as the service does (server/restriction/emergency-reason.ts).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { planFor, reasonCount, reasonProblem, visibleLength } from "../../console/src/actionPlan.js";
import { emergencyReasonProblem, visibleLength as serviceVisibleLength } from "../../server/restriction/emergency-reason.js";
import { MAX_ROLLBACK_REASON_LENGTH, MIN_BYPASS_REASON_LENGTH } from "../../server/restriction/limits.js";

describe("planFor", () => {
  test("approvals off: activation is direct, with no reason asked", () => {
    const plan = planFor("activate", "off", 7);
    expect(plan).toMatchObject({ kind: "direct", openLabel: "Preview activation…", confirmLabel: "Activate", reason: null });
    expect(plan.title).toBe("Activate cohort 7?");
  });

  test("approvals required: activation is one path, a request, never a direct Activate", () => {
    const plan = planFor("activate", "required", 7);
    expect(plan).toMatchObject({ kind: "request", confirmLabel: "Request approval", title: "Request activation of cohort 7" });
    expect(plan.openLabel).not.toMatch(/^Activate|^Preview activation…$/);
    expect(plan.lead).toMatch(/^Nothing changes yet/);
    expect(plan.reason?.required).toBe(false);
  });

  test("a rollback is direct in both modes and never mentions requesting an approval", () => {
    for (const approvals of ["off", "required"] as const) {
      const plan = planFor("rollback", approvals, 7);
      expect(plan).toMatchObject({ kind: "direct", confirmLabel: "Roll back", tone: "danger", title: "Roll back cohort 7?" });
      expect(`${plan.lead} ${plan.reason?.label}`).not.toMatch(/request/i);
    }
  });

  test("the rollback's reason is optional with approvals off and required, 10+ counted, with approvals required", () => {
    const off = planFor("rollback", "off", 1).reason;
    const required = planFor("rollback", "required", 1).reason;
    expect(off).toMatchObject({ required: false, max: MAX_ROLLBACK_REASON_LENGTH });
    expect(off?.label).toMatch(/^Reason \(optional/);
    expect(required).toMatchObject({ required: true, min: MIN_BYPASS_REASON_LENGTH, max: MAX_ROLLBACK_REASON_LENGTH });
    expect(required?.label).toMatch(/^Reason \(required, at least 10 /);
  });
});

describe("reasonProblem", () => {
  const required = planFor("rollback", "required", 1).reason!;
  const optional = planFor("rollback", "off", 1).reason!;

  test("an optional reason may be empty, but not too long", () => {
    expect(reasonProblem(optional, "")).toBeNull();
    expect(reasonProblem(optional, "x".repeat(MAX_ROLLBACK_REASON_LENGTH))).toBeNull();
    expect(reasonProblem(optional, "x".repeat(MAX_ROLLBACK_REASON_LENGTH + 1))).toBe("At most 500 characters: this reason has 501.");
  });

  test("a required reason says how many characters count so far", () => {
    expect(reasonProblem(required, "")).toMatch(/^Write why/);
    expect(reasonProblem(required, "too   few")).toBe("At least 10 letters, digits or punctuation marks: 6 so far (spaces do not count).");
    expect(reasonProblem(required, "complaints")).toBeNull();
    expect(reasonCount(required, "too few")).toBe("6 of at least 10 counted; 7 / 500 characters");
    expect(reasonCount(optional, "too few")).toBe("7 / 500 characters");
  });

  test("the console refuses exactly what the service refuses, on any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-composite", maxLength: 30 }), fc.string({ unit: "binary", maxLength: 30 }), (a, b) => {
        for (const text of [a, b, a + b]) {
          expect(visibleLength(text)).toBe(serviceVisibleLength(text));
          expect(reasonProblem(required, text) === null).toBe(emergencyReasonProblem(text.trim() ? text : null) === null);
        }
      }),
    );
    // A hundred runs of the property: CPU time, longer on a busy machine, not a measure of anything.
  }, 30_000);
});
