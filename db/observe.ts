// What the database layer itself can tell about its work, the same on both drivers (the bound on that work
// is db/deadline.ts). postgres.js keeps its
// pool's queues (open, busy, full, the queries waiting) inside a closure with no supported way to read
// them, and PGlite has no pool at all. So the Drizzle database's top-level session is wrapped through its
// typed API (`db._.session`): a statement outside a transaction, and a transaction as a whole (it holds one
// connection throughout), is one unit of work from being issued until it settles, waiting for a pool
// connection included. The same wrapper knows when a transaction has committed, for afterCommit.
import type { Db, DbOrTx } from "./types.js";

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

function tracked<T>(observe: DbObserver | undefined, kind: DbWorkKind, run: () => Promise<T>): Promise<T> {
  if (!observe) return run();
  const settled = observe(kind);
  let work: Promise<T>;
  try {
    work = run();
  } catch (err) {
    settled(err);
    throw err;
  }
  return work.then(
    (value) => {
      settled();
      return value;
    },
    (err: unknown) => {
      settled(err);
      throw err;
    },
  );
}

/** Wraps the top-level session of `db` (createDb calls it once per database). */
export function instrumentDb(db: Db, observe?: DbObserver): void {
  const session = db._.session;
  const prepareQuery = session.prepareQuery.bind(session);
  session.prepareQuery = ((...args: Parameters<typeof prepareQuery>) => {
    const prepared = prepareQuery(...args);
    const execute = prepared.execute.bind(prepared);
    prepared.execute = (placeholders) => tracked(observe, "statement", () => execute(placeholders));
    return prepared;
  }) as typeof session.prepareQuery;

  const transaction = session.transaction.bind(session);
  session.transaction = (async (run: Parameters<typeof transaction>[0], config?: Parameters<typeof transaction>[1]) => {
    const onCommit: (() => void)[] = [];
    const result = await tracked(observe, "transaction", () =>
      transaction((tx) => {
        commitCallbacks.set(tx, onCommit);
        return run(tx);
      }, config),
    );
    for (const callback of onCommit) callback();
    return result;
  }) as typeof session.transaction;
}
