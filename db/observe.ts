// What the database layer itself can tell about its work, the same on both drivers. postgres.js keeps its
// pool's queues (open, busy, full, the queries waiting) inside a closure with no supported way to read
// them, and PGlite has no pool at all. So the Drizzle database's top-level session is wrapped through its
// typed API (`db._.session`): a statement outside a transaction, and a transaction as a whole (it holds one
// connection throughout), is one unit of work from being issued until it settles, waiting for a pool
// connection included. The same wrapper knows when a transaction has committed, for afterCommit.
import type { Db, DbOrTx } from "./client.js";

export type DbWorkKind = "statement" | "transaction";
/** Told when a unit of work is issued; returns what to call once it has settled (with its error, if it failed). */
export type DbObserver = (kind: DbWorkKind) => (error?: unknown) => void;

/** The callbacks waiting for each open top-level transaction's commit. */
const commitCallbacks = new WeakMap<object, (() => void)[]>();

/**
 * Runs `callback` once the transaction `db` belongs to has committed; never when it rolls back. Outside a
 * transaction (`db` is the database: the statement has committed already) it runs at once, and so it does
 * inside a nested transaction (a savepoint), which this does not follow.
 */
export function afterCommit(db: DbOrTx, callback: () => void): void {
  const waiting = commitCallbacks.get(db);
  if (waiting) waiting.push(callback);
  else callback();
}

/** A unit of work with no answer in time: its code is the one postgres.js's query_timeout gives (db/errors.ts). */
export class QueryTimeoutError extends Error {
  readonly code = "QUERY_TIMEOUT";
  constructor(kind: DbWorkKind, ms: number) {
    super(`the database gave no answer to a ${kind} within ${ms} ms`);
  }
}

export type DbBound = {
  /**
   * The longest a unit of work may take, from issue (a wait for a pool connection included) until it
   * settles; past it the caller gets a QueryTimeoutError. A backstop whatever the driver does: the
   * driver's own bound (postgres.js's query_timeout) is what discards the connection.
   */
  timeoutMs: number;
};

function tracked<T>(observe: DbObserver | undefined, bound: DbBound | undefined, kind: DbWorkKind, run: () => Promise<T>): Promise<T> {
  if (!observe && !bound) return run();
  const settled = observe?.(kind);
  let work: Promise<T>;
  try {
    work = run();
  } catch (err) {
    settled?.(err);
    throw err;
  }
  // One promise per unit of work, settled by the work or by the bound, whichever comes first. Work abandoned
  // to the bound still settles later (the driver's bound discards its connection), into the void.
  return new Promise<T>((resolve, reject) => {
    let pending = true;
    const timer = bound ? setTimeout(() => fail(new QueryTimeoutError(kind, bound.timeoutMs)), bound.timeoutMs) : undefined;
    function succeed(value: T) {
      if (!pending) return;
      pending = false;
      clearTimeout(timer);
      settled?.();
      resolve(value);
    }
    function fail(err: unknown) {
      if (!pending) return;
      pending = false;
      clearTimeout(timer);
      settled?.(err);
      reject(err);
    }
    work.then(succeed, fail);
  });
}

/** Wraps the top-level session of `db` (createDb calls it once per database). */
export function instrumentDb(db: Db, observe?: DbObserver, bound?: DbBound): void {
  const session = db._.session;
  const prepareQuery = session.prepareQuery.bind(session);
  session.prepareQuery = ((...args: Parameters<typeof prepareQuery>) => {
    const prepared = prepareQuery(...args);
    const execute = prepared.execute.bind(prepared);
    prepared.execute = (placeholders) => tracked(observe, bound, "statement", () => execute(placeholders));
    return prepared;
  }) as typeof session.prepareQuery;

  const transaction = session.transaction.bind(session);
  session.transaction = (async (run: Parameters<typeof transaction>[0], config?: Parameters<typeof transaction>[1]) => {
    const onCommit: (() => void)[] = [];
    const result = await tracked(observe, bound, "transaction", () =>
      transaction((tx) => {
        commitCallbacks.set(tx, onCommit);
        return run(tx);
      }, config),
    );
    for (const callback of onCommit) callback();
    return result;
  }) as typeof session.transaction;
}
