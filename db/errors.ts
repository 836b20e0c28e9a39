// What a database error means, whichever driver raised it: its SQLSTATE, and whether the database is out
// of reach. Drizzle and tRPC wrap the driver's error, so every question walks the cause chain.

// SQLSTATE classes and driver codes that mean "the database cannot be reached right now": connection
// failures, shutdowns, too many connections, a database that does not accept connections (55000 at
// connect) or is not there under its name (3D000), and refused credentials (28).
// 57014: a statement cancelled at its deadline (db/deadline.ts) or by PostgreSQL's own statement_timeout.
const UNAVAILABLE_SQLSTATES = /^(08|28|57P0[1-3]|57014|53300|55000|3D000)/;
const UNAVAILABLE_DRIVER_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  // No answer within DB_QUERY_TIMEOUT_SECONDS (db/deadline.ts, and postgres.js's query_timeout).
  "QUERY_TIMEOUT",
  // A COMMIT sent whose answer never came (db/deadline.ts).
  "OUTCOME_UNKNOWN",
]);

/** The error and its causes, outermost first; a cycle ends the walk. */
export function* causes(err: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && !seen.has(current)) {
    seen.add(current);
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

const codes = function* (err: unknown): Generator<string> {
  for (const c of causes(err)) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string") yield code;
  }
};

export function isDatabaseUnavailable(err: unknown): boolean {
  for (const code of codes(err)) {
    if (UNAVAILABLE_DRIVER_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code)) return true;
  }
  return false;
}

/** A unit of work that had no answer in time (its connection was given up on). */
export function isQueryTimeout(err: unknown): boolean {
  for (const code of codes(err)) if (code === "QUERY_TIMEOUT") return true;
  return false;
}

/** Work whose COMMIT was sent and never answered: it may have committed (docs/guarantees.md). */
export function isOutcomeUnknown(err: unknown): boolean {
  for (const code of codes(err)) if (code === "OUTCOME_UNKNOWN") return true;
  return false;
}

/** The SQLSTATE of a PostgreSQL error anywhere in the cause chain, e.g. 23505 for a unique violation. */
export function sqlState(err: unknown): string | undefined {
  for (const code of codes(err)) {
    if (/^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
