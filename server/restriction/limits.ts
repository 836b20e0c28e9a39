// The restriction's input limits (docs/api.md#limits). Constants only, free of any import: the procedures'
// schemas (schemas.ts) and the operator console's own checks (console/src/csv.ts, CohortActions.tsx) read
// these, so the two can never disagree.

/** Pros one cohort may list. */
export const MAX_PROS_PER_COHORT = 500;
/** Characters of one pro id. */
export const MAX_PRO_ID_LENGTH = 200;
/** Characters of a rollback's reason. */
export const MAX_ROLLBACK_REASON_LENGTH = 500;
/** Characters of the reason a rollback needs without a change request while approvals are required. */
export const MIN_BYPASS_REASON_LENGTH = 10;
/** Characters of a change request's reason or a decision's comment. */
export const MAX_CHANGE_REQUEST_TEXT_LENGTH = 500;
