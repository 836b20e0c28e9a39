// What a cohort's rollout action will really do, given the mode the service runs in (settings.get's
// `approvals`, docs/api.md#four-eyes-approval): the one path the page offers and the words of its dialog.
// Pure (no React, no I/O), unit-tested in test/unit/console-action-plan.test.ts. With approvals required an
// activation can only be requested; a rollback never waits for anyone, but then needs a written reason.
import { MAX_CHANGE_REQUEST_TEXT_LENGTH, MAX_ROLLBACK_REASON_LENGTH, MIN_BYPASS_REASON_LENGTH } from "../../server/restriction/limits.js";

export type Approvals = "off" | "required";
export type CohortAction = "activate" | "rollback";

export type ReasonRule = {
  /** Whether the service refuses the action without a reason of `min` visible characters. */
  required: boolean;
  min: number;
  max: number;
  label: string;
};

export type ActionPlan = {
  /** "request": a change request another admin approves; "direct": the change happens when confirmed. */
  kind: "direct" | "request";
  action: CohortAction;
  /** The page's button that opens the dialog. */
  openLabel: string;
  title: string;
  confirmLabel: string;
  tone: "primary" | "danger";
  /** The dialog's first words: what confirming does. */
  lead: string;
  /** Null when the dialog asks for no reason (a direct activation takes none). */
  reason: ReasonRule | null;
};

/**
 * The path for `action` on a cohort in `approvals` mode. An activation is direct with approvals off and a
 * request with approvals required (the service answers a direct one 409); a rollback is always direct.
 */
export function planFor(action: CohortAction, approvals: Approvals, cohortNumber: number): ActionPlan {
  if (action === "rollback") {
    const emergency = approvals === "required";
    return {
      kind: "direct",
      action,
      openLabel: "Preview rollback…",
      title: `Roll back cohort ${cohortNumber}?`,
      confirmLabel: "Roll back",
      tone: "danger",
      lead: emergency
        ? "Rolling back switches these pros' restriction off at once. No approval is needed for a rollback: a written reason is, and the audit log marks the rollback as made without approval."
        : "Rolling back switches these pros' restriction off at once.",
      reason: emergency
        ? {
            required: true,
            min: MIN_BYPASS_REASON_LENGTH,
            max: MAX_ROLLBACK_REASON_LENGTH,
            label: `Reason (required, at least ${MIN_BYPASS_REASON_LENGTH} letters, digits or punctuation marks; kept with the cohort and in the audit log)`,
          }
        : {
            required: false,
            min: 0,
            max: MAX_ROLLBACK_REASON_LENGTH,
            label: "Reason (optional; kept with the cohort and in the audit log)",
          },
    };
  }
  if (approvals === "required") {
    return {
      kind: "request",
      action,
      openLabel: "Preview and request activation…",
      title: `Request activation of cohort ${cohortNumber}`,
      confirmLabel: "Request approval",
      tone: "primary",
      lead: "Nothing changes yet: activations need a second admin here. This request waits under Approvals; once another admin approves it, the cohort is activated, unless the impact below has changed by then.",
      reason: {
        required: false,
        min: 0,
        max: MAX_CHANGE_REQUEST_TEXT_LENGTH,
        label: "Reason (optional, shown to the approving admin)",
      },
    };
  }
  return {
    kind: "direct",
    action,
    openLabel: "Preview activation…",
    title: `Activate cohort ${cohortNumber}?`,
    confirmLabel: "Activate",
    tone: "primary",
    lead: "Activating switches these pros' restriction on at once.",
    reason: null,
  };
}

/**
 * Letters, digits and punctuation: the characters the service counts in an emergency rollback's reason
 * (server/restriction/emergency-reason.ts, which the console may not import; a unit test holds the two equal).
 */
const VISIBLE = /[\p{L}\p{N}\p{P}]/gu;

/** How many characters of `text` count towards a required reason. */
export const visibleLength = (text: string): number => text.match(VISIBLE)?.length ?? 0;

/** Why `text` would be refused as the reason, in words, or null when the service would take it. */
export function reasonProblem(rule: ReasonRule, text: string): string | null {
  if (text.length > rule.max) return `At most ${rule.max} characters: this reason has ${text.length}.`;
  if (!rule.required) return null;
  const visible = visibleLength(text);
  if (visible >= rule.min) return null;
  return visible === 0
    ? `Write why: a rollback needs a reason of at least ${rule.min} letters, digits or punctuation marks.`
    : `At least ${rule.min} letters, digits or punctuation marks: ${visible} so far (spaces do not count).`;
}

/** The count shown under the reason field. */
export function reasonCount(rule: ReasonRule, text: string): string {
  const length = `${text.length} / ${rule.max} characters`;
  return rule.required ? `${visibleLength(text)} of at least ${rule.min} counted; ${length}` : length;
}
