// The one place the database bound (DB_QUERY_TIMEOUT_SECONDS) is kept, for PostgreSQL. docs/guarantees.md
// says what it promises: an error means nothing was written, a success means it was committed, and the one
// case that cannot be known (a COMMIT sent whose answer never came) says so. How:
//
// - Every unit of work gets a deadline when it is issued: a statement outside a transaction, or a whole
//   transaction, waits for a pool connection included.
// - At the deadline the work is cancelled the driver's way (postgres.js `query.cancel()`): a statement still
//   queued for a connection is taken off the queue and never starts; one running gets a cancel request, and
//   PostgreSQL rolls it back. The caller is answered when the work has settled, never before, so an answer is
//   always the truth about the work. A transaction past its deadline sends no further statement and never
//   COMMIT: it rolls back.
// - Each connection also carries PostgreSQL's own `statement_timeout` and
//   `idle_in_transaction_session_timeout` (boundedConnection), so the server ends the work even when this
//   process or its network is gone.
//
// It is an explicit wrapper of the postgres.js client handed to Drizzle, which calls only `unsafe`, `begin`
// and (inside a transaction) `savepoint` on it, and reads `options` (docs/machinery.md).
import type { PendingQuery, Sql, TransactionSql } from "postgres";

/** The work was cancelled at its deadline or never started: nothing was written. */
export class QueryTimeoutError extends Error {
  readonly code = "QUERY_TIMEOUT";
  constructor(kind: "statement" | "transaction", ms: number, cause?: unknown) {
    super(`the database gave no answer to a ${kind} within ${ms} ms; nothing was written`, { cause });
  }
}

/** A COMMIT (or a statement that commits on its own) was sent and no answer came: it may or may not have committed. */
export class OutcomeUnknownError extends Error {
  readonly code = "OUTCOME_UNKNOWN";
  constructor(cause: unknown) {
    super("the database connection was lost after the work was sent: whether it committed is unknown", { cause });
  }
}

/** Driver codes that mean the connection went away without the server answering the statement. */
const LOST_CONNECTION = new Set(["QUERY_TIMEOUT", "CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED", "ECONNRESET", "EPIPE"]);
const lostConnection = (err: unknown) => LOST_CONNECTION.has((err as { code?: string })?.code ?? "");
const wasCancelled = (err: unknown) => (err as { code?: string })?.code === "57014";

/** The databases a COMMIT's answer can be lost on: PostgreSQL over a network, not PGlite in this process. */
const overNetwork = new WeakSet<object>();
export const markCommitsCanBeLost = (db: object) => overNetwork.add(db);
export const commitsCanBeLost = (db: object): boolean => overNetwork.has(db);

/** Startup parameters for every connection of the pool: PostgreSQL's own bound, should this process not be there to cancel. */
export function boundedConnection(timeoutMs: number): Record<string, string> {
  return {
    // A little later than the deadline: while this process is there, its own cancel comes first and alone
    // (two cancels racing could land the second on whatever the connection runs next).
    statement_timeout: String(timeoutMs + SERVER_GRACE_MS),
    idle_in_transaction_session_timeout: String(timeoutMs + SERVER_GRACE_MS),
  };
}

/** How long past the deadline PostgreSQL waits before it ends a statement or an idle transaction itself (before the driver gives the connection up, 2 s past it). */
const SERVER_GRACE_MS = 1000;

type Thenable<T> = PromiseLike<T> & { values(): Thenable<T> };

/** What Drizzle's postgres-js session calls on its client. */
type DriverClient = Pick<Sql, "unsafe" | "begin" | "options">;

/**
 * A statement outside a transaction: cancelled at the deadline. A cancelled statement rejects with 57014 and
 * wrote nothing; one whose connection was lost after it was sent may have committed (it commits on its own).
 */
function boundedStatement<T>(query: PendingQuery<never>, timeoutMs: number): Thenable<T> {
  const run = () =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => query.cancel(), timeoutMs);
      query.then(
        (rows) => {
          clearTimeout(timer);
          resolve(rows as T);
        },
        (err: unknown) => {
          clearTimeout(timer);
          // Cancelled by us at the deadline, or by PostgreSQL's statement_timeout a moment later: rolled back either way.
          if (wasCancelled(err)) reject(new QueryTimeoutError("statement", timeoutMs, err));
          else if (lostConnection(err)) reject(new OutcomeUnknownError(err));
          else reject(err);
        },
      );
    });
  let started: Promise<T> | undefined;
  const thenable: Thenable<T> = {
    values() {
      query.values();
      return thenable;
    },
    // biome-ignore lint/suspicious/noThenProperty: Drizzle awaits what `unsafe` returns; this is that thenable.
    then(onFulfilled, onRejected) {
      started ??= run();
      return started.then(onFulfilled, onRejected);
    },
  };
  return thenable;
}

/** One transaction's state, shared by its statements and its savepoints. */
type TxState = { doomed: boolean; deadline: number; active: Set<PendingQuery<never>>; timeoutMs: number };

/** The client a transaction's statements go through: none is sent once the deadline has passed, and the one running is cancelled then. */
function boundedTransactionSql(inner: TransactionSql, state: TxState): TransactionSql {
  const unsafe = (query: string, params?: unknown[], options?: Parameters<Sql["unsafe"]>[2]) => {
    if (state.doomed || Date.now() >= state.deadline) return rejected(new QueryTimeoutError("transaction", state.timeoutMs));
    const pending = inner.unsafe(query, params as never[], options) as PendingQuery<never>;
    state.active.add(pending);
    const done = () => state.active.delete(pending);
    let started: Promise<unknown> | undefined;
    const thenable: Thenable<unknown> = {
      values() {
        pending.values();
        return thenable;
      },
      // biome-ignore lint/suspicious/noThenProperty: Drizzle awaits what `unsafe` returns; this is that thenable.
      then(onFulfilled, onRejected) {
        started ??= pending.then(
          (rows) => {
            done();
            return rows;
          },
          (err: unknown) => {
            done();
            throw wasCancelled(err) ? new QueryTimeoutError("transaction", state.timeoutMs, err) : err;
          },
        );
        return started.then(onFulfilled, onRejected);
      },
    };
    return thenable;
  };
  const savepoint = (run: (sql: TransactionSql) => unknown) => inner.savepoint((sp) => run(boundedTransactionSql(sp, state)));
  return { unsafe, savepoint } as unknown as TransactionSql;
}

function rejected(err: unknown): Thenable<never> {
  const thenable: Thenable<never> = {
    values: () => thenable,
    // biome-ignore lint/suspicious/noThenProperty: a thenable that rejects when awaited, as a statement would.
    then: (onFulfilled, onRejected) => Promise.reject(err).then(onFulfilled, onRejected),
  };
  return thenable;
}

/**
 * The postgres.js client with every unit of work bounded by `timeoutMs`. A transaction past its deadline:
 * if it has not begun (waiting for a connection) it rolls back as soon as it gets one, before any statement
 * of its own; if it is running, its statement is cancelled and no other is sent; it never sends COMMIT. When
 * COMMIT was sent and the connection was lost before its answer, it fails with OutcomeUnknownError.
 */
export function boundedSql(sql: Sql, timeoutMs: number): Sql {
  const unsafe = (query: string, params?: unknown[], options?: Parameters<Sql["unsafe"]>[2]) =>
    boundedStatement(sql.unsafe(query, params as never[], options) as PendingQuery<never>, timeoutMs);

  async function begin(run: (sql: TransactionSql) => unknown): Promise<unknown> {
    const state: TxState = { doomed: false, deadline: Date.now() + timeoutMs, active: new Set(), timeoutMs };
    let committing = false;
    const timer = setTimeout(() => {
      state.doomed = true;
      for (const query of state.active) query.cancel();
    }, timeoutMs);
    try {
      return await sql.begin(async (inner) => {
        if (state.doomed || Date.now() >= state.deadline) throw new QueryTimeoutError("transaction", timeoutMs);
        const result = await run(boundedTransactionSql(inner, state));
        // The last moment to change our mind: past the deadline, postgres.js sends ROLLBACK instead of COMMIT.
        if (state.doomed || Date.now() >= state.deadline) throw new QueryTimeoutError("transaction", timeoutMs);
        committing = true;
        return result;
      });
    } catch (err) {
      if (committing && lostConnection(err)) throw new OutcomeUnknownError(err);
      // Cancelled at the deadline, whichever statement the cancel met (the ROLLBACK that followed, too).
      if (state.doomed && wasCancelled(err)) throw new QueryTimeoutError("transaction", timeoutMs, err);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  const client: DriverClient = { unsafe: unsafe as unknown as Sql["unsafe"], begin: begin as Sql["begin"], options: sql.options };
  return client as Sql;
}
