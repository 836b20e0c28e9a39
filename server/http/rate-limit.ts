// Request counting for every limit (docs/api.md#rate-limits): rate-limiter-flexible's fixed window per key.
// On PostgreSQL the counts live in the rate_limits table (migration 0005), so every instance on the same
// database counts against one budget; the embedded PGlite serves one process only, so there they live in
// that process's memory.
import { hash } from "node:crypto";
import { getTableName } from "drizzle-orm";
import type { Sql } from "postgres";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import type { DbHandle } from "../../db/client.js";
import { rateLimits } from "../../db/schema/index.js";

export type Window = { max: number; timeWindowMs: number };

export type RateLimitVerdict = { limited: false } | { limited: true; retryAfterSeconds: number };

/** Counts one request for `key`; limited once the window holds more than `max`. */
export type RateLimiter = (key: string) => Promise<RateLimitVerdict>;

/** The operations limited per caller inside the procedures, whichever door they come through. */
export type ProcedureRateLimits = { testPush?: RateLimiter };

/** Where the counts are kept: this process's memory, or the PostgreSQL database every instance shares. */
export type RateLimitStore = { kind: "memory" } | { kind: "postgres"; client: Sql };

export const memoryRateLimitStore: RateLimitStore = { kind: "memory" };

/** The store that fits a database: shared on PostgreSQL, in memory on the embedded PGlite. */
export function rateLimitStoreFor(handle: DbHandle): RateLimitStore {
  return handle.driver === "postgres" ? { kind: "postgres", client: handle.client } : memoryRateLimitStore;
}

/**
 * The postgres.js pool as the client RateLimiterPostgres takes with storeType "pool": it calls
 * `query({ name, text, values })` and reads `rows` and `rowCount`, as on a `pg` Pool. The counts then share
 * the service's pool and connection settings instead of opening a second pool of their own.
 */
function asPgPool(sql: Sql) {
  return {
    async query(q: { text: string; values?: unknown[] }) {
      const rows = await sql.unsafe(q.text, (q.values ?? []) as never[], { prepare: true });
      return { rows, rowCount: rows.count };
    },
  };
}

/**
 * The key as a PostgreSQL row holds it: a digest, so a row stays within the table's 255 characters and holds
 * no e-mail or client address, and any text (a NUL character) is a key. The same key gives the same digest on
 * every instance. This process's memory takes the key as it is: hashing it there cost ~1 % of an OFREP
 * evaluation's CPU (issue AE) and kept nothing from anyone.
 */
const digest = (key: string) => hash("sha256", key, "base64url");
const asIs = (key: string) => key;

/** A limiter of rate-limiter-flexible with the function that turns a key into the one its store keeps. */
type StoreLimiter = { limiter: RateLimiterAbstract; keyOf: (key: string) => string };

/** rate-limiter-flexible's limiter for `name` (the rows' key prefix, one per limit) in `store`. */
function storeLimiter(store: RateLimitStore, name: string, window: Window): StoreLimiter {
  const options = { keyPrefix: name, points: window.max, duration: window.timeWindowMs / 1000 };
  const limiter: RateLimiterAbstract =
    store.kind === "postgres"
      ? new RateLimiterPostgres({
          ...options,
          storeClient: asPgPool(store.client),
          storeType: "pool",
          tableName: getTableName(rateLimits),
          // Made by the migration: start-up needs no CREATE rights.
          tableCreated: true,
          // Rows whose window ended an hour ago are deleted every five minutes (a timer that does not hold
          // the process open); with several instances each does it, which is harmless.
          clearExpiredByTimeout: true,
        })
      : new RateLimiterMemory(options);
  return { limiter, keyOf: store.kind === "postgres" ? digest : asIs };
}

const NOT_LIMITED: RateLimitVerdict = Object.freeze({ limited: false });
const notLimited = () => NOT_LIMITED;
/** Over the budget the library rejects with the count; anything else is the store failing. */
function overBudget(err: unknown): RateLimitVerdict {
  if (err instanceof RateLimiterRes) return { limited: true, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)) };
  throw err;
}

/**
 * Counts one request for `key` on `limiter`: limited once its window holds more than its points. The
 * library's promise and one more, no async function around them: every OFREP request passes here (issue AE).
 */
function consumeOne({ limiter, keyOf }: StoreLimiter, key: string): Promise<RateLimitVerdict> {
  return limiter.consume(keyOf(key)).then(notLimited, overBudget);
}

/** A limit named `name` (the rows' key prefix, one per limit: "sign-in", "sign-up", "test-push"). */
export function createRateLimiter(store: RateLimitStore, name: string, window: Window): RateLimiter {
  const limiter = storeLimiter(store, name, window);
  return (key) => consumeOne(limiter, key);
}

/**
 * A budget of failures per key, which only the answer can tell. `reserve` counts the attempt before it runs
 * (limited once over the budget), and `refund` gives the point back when the attempt did not fail. Counting
 * first, rather than after a failure, keeps attempts in flight at once from all passing one last free place.
 */
export type FailureBudget = { reserve(key: string): Promise<RateLimitVerdict>; refund(key: string): Promise<void> };

export function createFailureBudget(store: RateLimitStore, name: string, window: Window): FailureBudget {
  const counts = storeLimiter(store, name, window);
  return {
    reserve: (key) => consumeOne(counts, key),
    refund: async (key) => {
      await counts.limiter.reward(counts.keyOf(key));
    },
  };
}
