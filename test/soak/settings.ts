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

/** SOAK_SECONDS: how long the traffic and the faults run (default 60, at most 3600). */
export const SECONDS = intSetting("SOAK_SECONDS", 60, 1, 3600);
/** SOAK_USERS: how many users (made by an admin, each signed in) read and change their inbox (default 6). */
export const USERS = intSetting("SOAK_USERS", 6, 1, 20);
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

export const PRO_COUNT = 300;

/** The pros the database starts with; the admins' cohorts and per-pro changes draw from them (chaos/world.ts). */
export const proIds = Array.from({ length: PRO_COUNT }, (_, i) => `soak-pro-${String(i).padStart(4, "0")}`);

// The chaos soak's settings (test/soak/chaos/): instances, seed, faults and where the history goes.

/** SOAK_SEED: the seed of the workload and the faults (default 1); the same seed makes the same choices. */
export const SEED = intSetting("SOAK_SEED", 1, 0, 2 ** 31 - 1);
/** SOAK_INSTANCES: how many server instances share the database (default 3): one in this process, the rest `npm start` processes. */
export const INSTANCES = intSetting("SOAK_INSTANCES", 3, 2, 3);
/** SOAK_FAULT_EVERY_SECONDS: the mean gap between one fault's heal and the next fault (default 6; 0: no faults). */
export const FAULT_EVERY_SECONDS = intSetting("SOAK_FAULT_EVERY_SECONDS", 6, 0, 600);
/** SOAK_DB_DEADLINE_SECONDS: the instances' DB_QUERY_TIMEOUT_SECONDS (default 3), which the table-lock fault outlasts. */
export const DB_DEADLINE_SECONDS = intSetting("SOAK_DB_DEADLINE_SECONDS", 3, 1, 30);

/**
 * SOAK_MIN_FAULT_KINDS: a run with faults fails unless at least this many kinds were held (default 3; 0: no
 * such check), so that a run whose faults never happened cannot pass as one that survived them.
 */
export const MIN_FAULT_KINDS = intSetting("SOAK_MIN_FAULT_KINDS", 3, 0, 8);

/**
 * SOAK_ANSWER_MARGIN_SECONDS: every request must be answered within DB_QUERY_TIMEOUT_SECONDS plus this
 * (default 20). Generous on purpose: on a loaded, shared machine a process can wait seconds for a CPU; a
 * request that hangs (a lost wake-up, a leaked lock) hangs far longer, and is cut off and reported.
 */
export const ANSWER_MARGIN_SECONDS = intSetting("SOAK_ANSWER_MARGIN_SECONDS", 20, 1, 600);

export const FAULT_KINDS = [
  "listen-terminate",
  "db-closed",
  "table-lock",
  "sigkill",
  "sigterm",
  "relay-impostor",
  "pg-restart",
  "push-drop",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** SOAK_FAULTS: a comma-separated list of fault kinds (default: all of FAULT_KINDS). */
export const FAULTS: FaultKind[] = (() => {
  const raw = process.env.SOAK_FAULTS;
  if (raw === undefined || raw.trim() === "") return [...FAULT_KINDS];
  const kinds = raw.split(",").map((k) => k.trim());
  const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length || !kinds.length) {
    console.error(`SOAK_FAULTS: must be a comma-separated list of ${FAULT_KINDS.join(", ")}; got "${raw}"`);
    process.exit(2);
  }
  return kinds as FaultKind[];
})();

/**
 * SOAK_PG_RESTART: "1" lets the pg-restart fault restart PostgreSQL with pg_ctlcluster (default off: a shared
 * PostgreSQL serves others too, and the soak never restarts it unless told).
 */
export const PG_RESTART_ALLOWED = (() => {
  const raw = process.env.SOAK_PG_RESTART ?? "";
  if (raw !== "" && raw !== "0" && raw !== "1") {
    console.error(`SOAK_PG_RESTART: must be 0 or 1, got "${raw}"`);
    process.exit(2);
  }
  return raw === "1";
})();

/** SOAK_HISTORY: the file the history is written to, one JSON record a line (default soak-history-<seed>.jsonl in the OS temp folder). */
export const HISTORY_FILE = process.env.SOAK_HISTORY || "";
