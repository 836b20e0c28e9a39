// The service's gate messages in an operator's words. The service speaks in gate names and comparisons
// (`response_rate 0.5 < 0.6`, "Run check-gates first"), which stay on screen as a detail line; this leads
// with what they mean. Pure: unit-tested in test/unit/console-gates.test.ts.
import { NO_GATE_CHECK_MESSAGE } from "../../server/restriction/gates.js";

export type Explained = {
  /** What it means, in plain words, as a sentence. */
  summary: string;
  /** The service's exact text. */
  detail: string;
};

const UNMET = "Activation blocked by unmet gates: ";

/** One failed gate, as evaluateGates (server/restriction/gates.ts) writes it, in words. */
function gateInWords(failure: string): string {
  const rate = /^response_rate (\S+) < (\S+)$/.exec(failure);
  if (rate) return `the response rate is ${rate[1]}, below the ${rate[2]} it needs`;
  const comparisons = /^comparisons_done (\S+) < (\S+)$/.exec(failure);
  if (comparisons) return `${comparisons[1]} comparisons are done, fewer than the ${comparisons[2]} it needs`;
  if (failure === "communication_logs not live") return "the communication log could not be read";
  if (failure === "legal_signoff missing") return "legal has not signed the rollout off";
  return failure;
}

const sentence = (parts: string[]) => {
  const text = parts.join("; ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
};

/**
 * A gate check's `blockedBy` or an activation's refusal (`blockedBy` of a preview) in words, e.g.
 * "response_rate 0.5 < 0.6; legal_signoff missing" → "The response rate is 0.5, below the 0.6 it needs;
 * legal has not signed the rollout off."
 */
export function explainBlocker(blockedBy: string): Explained {
  if (blockedBy === NO_GATE_CHECK_MESSAGE) {
    return { summary: "No gate check has been run for this cohort yet: run one before activating.", detail: blockedBy };
  }
  const gates = blockedBy.startsWith(UNMET) ? blockedBy.slice(UNMET.length) : blockedBy;
  return { summary: sentence(gates.split("; ").filter(Boolean).map(gateInWords)), detail: blockedBy };
}

/** A span of time in words relative to now: "3 days ago", "in 5 minutes", "now". */
export function relativeTime(at: Date, now: Date): string {
  const seconds = (at.getTime() - now.getTime()) / 1000;
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ["year", 365 * 86400],
    ["month", 30 * 86400],
    ["week", 7 * 86400],
    ["day", 86400],
    ["hour", 3600],
    ["minute", 60],
  ];
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  return "just now";
}

export type CheckTiming = {
  /** How long ago the check was run, in words. */
  ago: string;
  /** When the cohort was rolled back after the check was run; null when it was not. */
  beforeRollback: Date | null;
};

/**
 * A gate check's age, and whether it was run before the cohort's rollback: a cohort rolled back and
 * activated again on the check that preceded its rollback should be seen to be. (Only a cohort that is not
 * active offers activation, and its activation, if any, came before its rollback.)
 */
export function checkTiming(checkedAt: Date, cohort: { rollbackAt: Date | null }, now: Date): CheckTiming {
  const beforeRollback = cohort.rollbackAt && checkedAt.getTime() < cohort.rollbackAt.getTime() ? cohort.rollbackAt : null;
  return { ago: relativeTime(checkedAt, now), beforeRollback };
}
