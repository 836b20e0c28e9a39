// The pure gate rules: each gate on its own at its boundary, the exact blockedBy text, and the
// activation decision taken from the latest check.
import { describe, expect, it } from "vitest";
import {
  activationBlocker,
  evaluateGates,
  type GateInputs,
  MIN_COMPARISONS_DONE,
  MIN_RESPONSE_RATE,
  NO_GATE_CHECK_MESSAGE,
} from "../../server/restriction/gates.js";

/** Inputs that pass every gate; each test spoils one or more of them. */
const passing: GateInputs = { responseRate: 0.6, comparisonsDone: 50, logLive: true, legalSignoff: true };
const gates = (overrides: Partial<GateInputs>) => evaluateGates({ ...passing, ...overrides });
const blocked = (blockedBy: string) => ({ allGatesMet: false, blockedBy });

describe("evaluateGates", () => {
  it("uses the documented thresholds (docs/api.md#gates)", () => {
    expect(MIN_RESPONSE_RATE).toBe(0.6);
    expect(MIN_COMPARISONS_DONE).toBe(50);
  });

  it("passes every gate at the boundaries, with a null blockedBy", () => {
    expect(evaluateGates(passing)).toEqual({ allGatesMet: true, blockedBy: null });
    expect(gates({ responseRate: 1, comparisonsDone: 2_147_483_647 })).toEqual({ allGatesMet: true, blockedBy: null });
  });

  const numericGates = [
    { field: "responseRate", entry: "response_rate", threshold: 0.6, below: 0.59, above: 0.61 },
    { field: "comparisonsDone", entry: "comparisons_done", threshold: 50, below: 49, above: 51 },
  ] as const;

  describe.each(numericGates)("$entry", ({ field, entry, threshold, below, above }) => {
    it(`passes at ${threshold} and above`, () => {
      expect(gates({ [field]: threshold }).allGatesMet).toBe(true);
      expect(gates({ [field]: above }).allGatesMet).toBe(true);
    });
    it(`fails at ${below}`, () => {
      expect(gates({ [field]: below })).toEqual(blocked(`${entry} ${below} < ${threshold}`));
    });
    it("counts a missing value as 0", () => {
      expect(gates({ [field]: null })).toEqual(blocked(`${entry} 0 < ${threshold}`));
      expect(gates({ [field]: 0 })).toEqual(blocked(`${entry} 0 < ${threshold}`));
    });
  });

  it("formats the response rate with String(n)", () => {
    expect(gates({ responseRate: 0.1 + 0.2 })).toEqual(blocked("response_rate 0.30000000000000004 < 0.6"));
    expect(gates({ responseRate: 0.5999999 })).toEqual(blocked("response_rate 0.5999999 < 0.6"));
    expect(gates({ responseRate: 1e-7 })).toEqual(blocked("response_rate 1e-7 < 0.6"));
    expect(gates({ responseRate: 0.5 })).toEqual(blocked("response_rate 0.5 < 0.6"));
  });

  it("fails when the communication log is not live", () => {
    expect(gates({ logLive: false })).toEqual(blocked("communication_logs not live"));
  });

  it("fails without legal sign-off", () => {
    expect(gates({ legalSignoff: false })).toEqual(blocked("legal_signoff missing"));
  });

  it("lists every failure in the order of the gate table, joined by '; '", () => {
    expect(evaluateGates({ responseRate: 0.5, comparisonsDone: 0, logLive: false, legalSignoff: false })).toEqual(
      blocked("response_rate 0.5 < 0.6; comparisons_done 0 < 50; communication_logs not live; legal_signoff missing"),
    );
    expect(evaluateGates({ responseRate: null, comparisonsDone: null, logLive: false, legalSignoff: false })).toEqual(
      blocked("response_rate 0 < 0.6; comparisons_done 0 < 50; communication_logs not live; legal_signoff missing"),
    );
  });

  it("keeps the order when only some gates fail", () => {
    expect(gates({ responseRate: 0.2, logLive: false })).toEqual(blocked("response_rate 0.2 < 0.6; communication_logs not live"));
    expect(gates({ comparisonsDone: 3, legalSignoff: false })).toEqual(blocked("comparisons_done 3 < 50; legal_signoff missing"));
    expect(gates({ logLive: false, legalSignoff: false })).toEqual(blocked("communication_logs not live; legal_signoff missing"));
  });
});

describe("activationBlocker", () => {
  it("blocks with the exact message when no check was run", () => {
    expect(NO_GATE_CHECK_MESSAGE).toBe("Activation blocked: no gate check has been run for this cohort. Run check-gates first.");
    expect(activationBlocker(null)).toBe(NO_GATE_CHECK_MESSAGE);
  });

  it("blocks with the unmet gates of the latest check", () => {
    expect(activationBlocker(blocked("comparisons_done 0 < 50; legal_signoff missing"))).toBe(
      "Activation blocked by unmet gates: comparisons_done 0 < 50; legal_signoff missing",
    );
  });

  it("says unknown when a failed check has no blockedBy", () => {
    expect(activationBlocker({ allGatesMet: false, blockedBy: null })).toBe("Activation blocked by unmet gates: unknown");
  });

  it("allows activation when every gate was met", () => {
    expect(activationBlocker({ allGatesMet: true, blockedBy: null })).toBeNull();
    expect(activationBlocker(evaluateGates(passing))).toBeNull();
  });

  it("agrees with evaluateGates on a failing check", () => {
    expect(activationBlocker(gates({ responseRate: 0.59 }))).toBe("Activation blocked by unmet gates: response_rate 0.59 < 0.6");
  });
});
