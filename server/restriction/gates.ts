// Pure rules of the prerequisite gates: no I/O, unit-tested on their own.

export const MIN_RESPONSE_RATE = 0.6;
export const MIN_COMPARISONS_DONE = 50;

export type GateInputs = {
  responseRate: number | null;
  comparisonsDone: number | null;
  logLive: boolean;
  legalSignoff: boolean;
};

export type GateResult = { allGatesMet: boolean; blockedBy: string | null };

/** Every failed gate adds one entry, in the order of the gates table (docs/api.md#gates), joined by "; ". */
export function evaluateGates(inputs: GateInputs): GateResult {
  const responseRate = inputs.responseRate ?? 0;
  const comparisonsDone = inputs.comparisonsDone ?? 0;
  const failures: string[] = [];
  if (responseRate < MIN_RESPONSE_RATE) failures.push(`response_rate ${String(responseRate)} < ${MIN_RESPONSE_RATE}`);
  if (comparisonsDone < MIN_COMPARISONS_DONE) {
    failures.push(`comparisons_done ${String(comparisonsDone)} < ${MIN_COMPARISONS_DONE}`);
  }
  if (!inputs.logLive) failures.push("communication_logs not live");
  if (!inputs.legalSignoff) failures.push("legal_signoff missing");
  return { allGatesMet: failures.length === 0, blockedBy: failures.length ? failures.join("; ") : null };
}

export const NO_GATE_CHECK_MESSAGE = "Activation blocked: no gate check has been run for this cohort. Run check-gates first.";

/** Why a cohort may not be activated given its latest gate check, or null when it may. */
export function activationBlocker(latest: GateResult | null): string | null {
  if (!latest) return NO_GATE_CHECK_MESSAGE;
  if (latest.allGatesMet) return null;
  return `Activation blocked by unmet gates: ${latest.blockedBy ?? "unknown"}`;
}
