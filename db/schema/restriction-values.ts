// The restriction's stored enumerations. Constants only, free of any import: the tables (restriction.ts,
// audit.ts) constrain their columns to these, and the procedures' output schemas describe them, without the
// schema's drizzle types reaching an app that imports AppRouter (test/consumer).

export const cohortStatuses = ["pending", "active", "rolled_back"] as const;
export type CohortStatus = (typeof cohortStatuses)[number];

/** How a pro's flag was changed: per pro, or by a cohort's activation or rollback. */
export const flagChangeVias = ["pro", "cohort"] as const;

/** What a cohort change request asks for (docs/api.md#four-eyes-approval). */
export const cohortActions = ["activate", "rollback"] as const;
export type CohortActionName = (typeof cohortActions)[number];

/**
 * What a change request asks for: a cohort's activation or rollback, one pro's activation, or the admin role
 * for a user (docs/api.md#four-eyes-approval).
 */
export const changeRequestActions = ["activate", "rollback", "grant-admin"] as const;
export type ChangeRequestAction = (typeof changeRequestActions)[number];

/** A change request's life: pending until approved (applied, or stale), rejected, cancelled or expired. */
export const changeRequestStatuses = ["pending", "applied", "stale", "rejected", "cancelled", "expired"] as const;
export type ChangeRequestStatus = (typeof changeRequestStatuses)[number];

/** A pending request expires after this long. */
export const CHANGE_REQUEST_TTL_HOURS = 72;

/** A pro's stored restriction status, as memory, OFREP and the admin lookup read it. */
export type ProStatus = {
  proId: string;
  restrictionActive: boolean;
  /** The cohort whose activation or rollback set the flag; null when set per pro. */
  cohortId: string | null;
  updatedAt: Date;
};

/** What a pro's flag says, as OFREP evaluates it: on or off, and by which cohort (null: set for the pro alone). */
export type StoredFlag = Readonly<Pick<ProStatus, "restrictionActive" | "cohortId">>;

/** A pro with no stored status: exactly these two keys (docs/api.md#pro-status). */
export type NoProStatus = { proId: string; restrictionActive: false };
