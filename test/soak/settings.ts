// The soak's settings from the environment (a bad value exits 2) and the fixed limits of its traffic.

function intSetting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`${name}: must be an integer from ${min} to ${max}, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

/** SOAK_SECONDS: how long the traffic runs (default 60, at most 3600). */
export const SECONDS = intSetting("SOAK_SECONDS", 60, 1, 3600);
/**
 * SOAK_USERS: how many signed-in users send traffic besides the admin (default 6).
 * The server admits 10 sign-ups a minute from one address: the admin and at most 9 users.
 */
export const USERS = intSetting("SOAK_USERS", 6, 1, 9);
/**
 * SOAK_MAX_HEAP_GROWTH_MB: live heap growth allowed from the first 10 s sample to the end (default 32);
 * more fails the run: memory that keeps growing under steady traffic is a leak.
 */
export const MAX_HEAP_GROWTH_MB = intSetting("SOAK_MAX_HEAP_GROWTH_MB", 32, 1, 4096);
/**
 * SOAK_DATABASE_URL: the PostgreSQL server to create the soak database on
 * (default postgres://postgres@127.0.0.1:5432/postgres); the database is dropped at the end.
 */
export const SERVER_URL = process.env.SOAK_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";

/** Every loop stops at the deadline or after this many operations, whichever comes first. */
export const MAX_OPS_PER_ACTOR = 1_000_000;
export const MAX_COHORTS = 40;
export const PRO_COUNT = 300;
/** The admin test push is rate limited (30 a minute per caller): one every 2.5 s stays under it. */
export const TEST_PUSH_EVERY_MS = 2_500;
/** Sign-in is rate limited (10 a minute per address and account): one every 10 s per user. */
export const SIGN_IN_EVERY_MS = 10_000;

/** The pros the server starts with and the admin's cohorts and per-pro changes draw from. */
export const proIds = Array.from({ length: PRO_COUNT }, (_, i) => `soak-pro-${String(i).padStart(4, "0")}`);
