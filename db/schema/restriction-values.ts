// The restriction's stored enumerations. Constants only, free of any import: the tables (restriction.ts,
// audit.ts) constrain their columns to these, and the procedures' output schemas describe them, without the
// schema's drizzle types reaching an app that imports AppRouter (test/consumer).

export const cohortStatuses = ["pending", "active", "rolled_back"] as const;
export type CohortStatus = (typeof cohortStatuses)[number];

/** How a pro's flag was changed: per pro, or by a cohort's activation or rollback. */
export const flagChangeVias = ["pro", "cohort"] as const;
