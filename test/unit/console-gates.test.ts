// The service's gate messages in an operator's words (console/src/gates.ts), the exact text kept as detail.
import { describe, expect, test } from "vitest";
import { checkTiming, explainBlocker } from "../../console/src/gates.js";
import { activationBlocker, evaluateGates, NO_GATE_CHECK_MESSAGE } from "../../server/restriction/gates.js";

describe("explainBlocker", () => {
  test.each([
    [NO_GATE_CHECK_MESSAGE, "No gate check has been run for this cohort yet: run one before activating."],
    ["response_rate 0.5 < 0.6", "The response rate is 0.5, below the 0.6 it needs."],
    ["comparisons_done 12 < 50", "12 comparisons are done, fewer than the 50 it needs."],
    ["communication_logs not live", "The communication log could not be read."],
    ["legal_signoff missing", "Legal has not signed the rollout off."],
    [
      "Activation blocked by unmet gates: response_rate 0.5 < 0.6; legal_signoff missing",
      "The response rate is 0.5, below the 0.6 it needs; legal has not signed the rollout off.",
    ],
    ["something new from the service", "Something new from the service."],
  ])("%j reads %j and keeps the text as its detail", (message, summary) => {
    expect(explainBlocker(message)).toEqual({ summary, detail: message });
  });

  test("every message the gates can write is put in words, none left in the service's terms", () => {
    for (const responseRate of [null, 0.2, 0.6])
      for (const comparisonsDone of [null, 3, 50])
        for (const logLive of [true, false])
          for (const legalSignoff of [true, false]) {
            const result = evaluateGates({ responseRate, comparisonsDone, logLive, legalSignoff });
            const blocker = activationBlocker(result);
            if (blocker === null) continue;
            const { summary } = explainBlocker(blocker);
            expect(summary).not.toMatch(/_|<|Activation blocked/);
          }
  });
});

describe("checkTiming", () => {
  const now = new Date("2026-11-24T12:00:00Z");
  const hoursAgo = (h: number) => new Date(now.getTime() - h * 3600_000);

  test("a check run before the cohort's rollback predates it, however recent the activation before", () => {
    expect(checkTiming(hoursAgo(72), { rollbackAt: hoursAgo(24) }, now)).toEqual({ ago: "3 days ago", beforeRollback: hoursAgo(24) });
  });

  test("a check run after the rollback, or of a cohort never rolled back, is fresh", () => {
    expect(checkTiming(hoursAgo(2), { rollbackAt: hoursAgo(24) }, now).beforeRollback).toBeNull();
    expect(checkTiming(hoursAgo(5), { rollbackAt: null }, now)).toEqual({ ago: "5 hours ago", beforeRollback: null });
    expect(checkTiming(hoursAgo(0.01), { rollbackAt: null }, now)).toEqual({ ago: "just now", beforeRollback: null });
  });
});
