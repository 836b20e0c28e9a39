// Pure rule of the emergency rollback's reason (docs/api.md#four-eyes-approval): the written reason a rollback
// needs without a change request while approvals are required. No I/O, unit-tested on its own.
import { MIN_BYPASS_REASON_LENGTH } from "./limits.js";

/**
 * Letters, digits and punctuation: characters a reader sees and that say something. Spaces, format characters
 * (zero-width spaces, joiners, bidirectional controls, soft hyphens), control characters, and marks or
 * symbols standing alone do not count, so ten zero-width spaces are no reason.
 */
const VISIBLE = /[\p{L}\p{N}\p{P}]/gu;

/** How many visible characters (code points) the text holds. */
export const visibleLength = (text: string): number => text.match(VISIBLE)?.length ?? 0;

/** Why the text is no written reason, or null when it is one: at least MIN_BYPASS_REASON_LENGTH visible characters. */
export function emergencyReasonProblem(text: string | null | undefined): string | null {
  return visibleLength(text ?? "") >= MIN_BYPASS_REASON_LENGTH
    ? null
    : `must hold at least ${MIN_BYPASS_REASON_LENGTH} visible characters (letters, digits or punctuation) while approvals are required`;
}
