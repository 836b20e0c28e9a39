// A database outage under traffic, for the PostgreSQL outage tests (test/postgres/db-outage*.test.ts): timed
// requests from several callers while every backend is terminated in a loop, over several rounds, with a
// watchdog that names every request still unanswered instead of waiting for the test's own timeout.
import type postgres from "postgres";

export type TimedAnswer = { label: string; status: number; body: string; ms: number };
/** The `i`th request of a mix: what to call it, and how to send it. */
export type MixedRequest = (i: number) => { label: string; send: () => Promise<{ status: number; body: string }> };

/** Ends every session on `database` but the caller's own; resolves to how many were ended. */
export async function terminateBackends(admin: postgres.Sql, database: string): Promise<number> {
  const rows = await admin`
    select pg_terminate_backend(pid) as ended from pg_stat_activity
    where datname = ${database} and pid <> pg_backend_pid()`;
  return rows.filter((r) => r.ended).length;
}

export type OutageOptions = {
  admin: postgres.Sql;
  database: string;
  request: MixedRequest;
  callers?: number;
  rounds?: number;
  /** How long each round terminates backends, and how often. */
  roundMs?: number;
  everyMs?: number;
  /** How long, once a round's terminations stop, every request may take to be answered. */
  settleWithinMs?: number;
};

export type OutageReport = {
  answers: TimedAnswer[];
  terminated: number;
  /** Per round, how many requests it answered with 503. */
  unavailablePerRound: number[];
  /** Requests not answered `settleWithinMs` after a round's terminations ended, with how long they had waited. */
  unanswered: string[];
};

/**
 * Rounds of: callers send requests back to back while every backend of `database` is terminated every
 * `everyMs` for `roundMs` (and, up to 4 × roundMs, until some request was cut off with a 503); then the
 * callers stop and every request must be answered within `settleWithinMs`.
 */
export async function outageUnderTraffic(options: OutageOptions): Promise<OutageReport> {
  const { admin, database, request, callers = 12, rounds = 3, roundMs = 1_500, everyMs = 50, settleWithinMs = 20_000 } = options;
  const answers: TimedAnswer[] = [];
  const unavailablePerRound: number[] = [];
  const unanswered: string[] = [];
  let terminated = 0;
  let next = 0;

  for (let round = 0; round < rounds && unanswered.length === 0; round++) {
    const pending = new Map<number, { label: string; start: number }>();
    const roundAnswers: TimedAnswer[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const id = next++;
        const { label, send } = request(id);
        const start = performance.now();
        pending.set(id, { label, start });
        const answer = await send();
        pending.delete(id);
        roundAnswers.push({ label, ...answer, ms: performance.now() - start });
      }
    };
    const workers = Array.from({ length: callers }, worker);
    const unavailable = () => roundAnswers.filter((a) => a.status === 503).length;
    const until = Date.now() + roundMs;
    const deadline = Date.now() + 4 * roundMs;
    while ((Date.now() < until || unavailable() === 0) && Date.now() < deadline) {
      terminated += await terminateBackends(admin, database);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
    stop = true;
    const settled = await Promise.race([
      Promise.all(workers).then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), settleWithinMs).unref()),
    ]);
    if (!settled) {
      const now = performance.now();
      for (const p of pending.values()) unanswered.push(`${p.label}: unanswered after ${Math.round(now - p.start)} ms`);
    }
    answers.push(...roundAnswers);
    unavailablePerRound.push(unavailable());
  }
  return { answers, terminated, unavailablePerRound, unanswered };
}

/** The slowest answers, for a failure message. */
export const slowest = (answers: TimedAnswer[], n = 5) =>
  [...answers]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, n)
    .map((a) => `${a.label}: ${a.status} in ${Math.round(a.ms)} ms`);
