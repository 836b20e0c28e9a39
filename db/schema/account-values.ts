// What an account may be: its roles and the bounds of its fields. A module of constants only, free of any
// import, so the contracts apps type-check against (server/routers/users/schemas.ts) read it without the
// server's modules (test/unit/consumer-footprint.test.ts).

/** A role is user or admin, nothing else (the users table's check). */
export const roleNames = ["user", "admin"] as const;
export type RoleName = (typeof roleNames)[number];

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 128;
/** The longest ban, in days. */
export const MAX_BAN_DAYS = 3650;
