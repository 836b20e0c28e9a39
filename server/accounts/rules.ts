// Account rules in words, pure (test/unit/account-rules.test.ts): who counts as an admin, the last admin,
// how long a ban and an impersonation last.

export const DAY_MS = 86_400_000;
/** An impersonation session lasts an hour at most (CONTRACT part five). */
export const IMPERSONATION_MS = 3_600_000;
// Who counts as banned or as an acting admin is decided with the account's values (db/), where the session
// resolver reads it too.
export {
  isActingAdmin,
  isBannedNow,
  MAX_BAN_DAYS,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  type RoleName,
  roleNames,
} from "../../db/schema/account-values.js";

/**
 * Whether taking `targetId` out of the acting admins leaves none. `admins` are the acting admins, read under
 * their row locks, so two admins demoting each other at once cannot both pass.
 */
export const wouldLeaveNoAdmin = (admins: readonly string[], targetId: string): boolean =>
  admins.includes(targetId) && admins.every((id) => id === targetId);

export const LAST_ADMIN_MESSAGE = "The last admin cannot be removed";

/** When a ban of `days` days ends; null for a ban without an end. */
export const banEnds = (days: number | null | undefined, now: number): Date | null => (days ? new Date(now + days * DAY_MS) : null);
