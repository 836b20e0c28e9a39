// Isolation harness, after PostgreSQL's src/test/isolation: named sessions, each with named steps, run in
// one chosen permutation against the real PostgreSQL test database. A step may block on a lock: the harness
// starts it, sees its backend wait (pg_blocking_pids), and goes on with the next step; after every step it
// lets the waiting ones finish or block again. No sleeps: it polls the server until each step is done or
// waiting, and fails after `withinMs` if neither comes.
//
//   const iso = await openIsolation(t().db);                       // PostgreSQL only (test/postgres/)
//   const run = await iso.run({
//     locker: sqlSession({                                         // a connection of its own: its pid is known
//       lock: (sql) => sql`begin`.then(() => sql`select 1 from t where id = 1 for update`),
//       commit: (sql) => sql`commit`,
//     }),
//     service: appSession({ approve: () => caller.approveChangeRequest({ id }) }),  // through the app's pool
//   }, ["lock", "approve", "commit"]);
//   expect(run.log).toEqual(["step lock", "step approve <waiting>", "step commit", "step approve <done>"]);
//   expect(run.results.approve).toMatchObject({ blocked: true, ok: false, error: { kind: "CONFLICT" } });
//   await iso.close();
//
// Step names are unique across sessions, as in PostgreSQL's specs. A step of an app session has no
// connection of its own: its backend is the one that starts waiting on a lock while it runs (so run at most
// one unattributed app step at a time, and keep other background work of the app off this database's locks). A session's
// next step may not start while its previous one waits (that is an error in the permutation).
import { sql as drizzleSql } from "drizzle-orm";
import postgres from "postgres";
import { type TestDb, WAITING_HERE } from "./db.js";

type SqlStep = (sql: postgres.ReservedSql) => Promise<unknown>;
type AppStep = () => Promise<unknown>;
type Session = { kind: "sql"; steps: Record<string, SqlStep> } | { kind: "app"; steps: Record<string, AppStep> };

export const sqlSession = (steps: Record<string, SqlStep>): Session => ({ kind: "sql", steps });
export const appSession = (steps: Record<string, AppStep>): Session => ({ kind: "app", steps });

export type StepResult = { session: string; blocked: boolean } & ({ ok: true; value: unknown } | { ok: false; error: unknown });

export type Run = {
  /** "step x" when it finished at once; "step x <waiting>" then, later, "step x <done>" when it blocked first. */
  log: string[];
  results: Record<string, StepResult>;
};

type Running = {
  name: string;
  session: string;
  /** The backend running it: the session's own, or (app steps) the one seen waiting while it ran. */
  pid: number | null;
  blocked: boolean;
  settled: { ok: true; value: unknown } | { ok: false; error: unknown } | null;
};

export type Isolation = {
  run(sessions: Record<string, Session>, permutation: string[], options?: { withinMs?: number }): Promise<Run>;
  close(): Promise<void>;
};

/** The harness on a test database: an observer connection of its own that watches the others' locks. */
export async function openIsolation(db: TestDb): Promise<Isolation> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (db.kind !== "postgres" || !serverUrl) throw new Error("the isolation harness needs PostgreSQL (TEST_DATABASE_URL)");
  const [row] = (await db.db.execute(drizzleSql`select current_database() as name`)) as unknown as { name: string }[];
  const url = new URL(serverUrl);
  url.pathname = `/${row!.name}`;
  const observer = postgres(url.toString(), { max: 1, onnotice: () => {} });

  /**
   * Backends that wait on a lock the permutation holds: its locks are all in this database (WAITING_HERE). CI
   * once took the app's outbox relay, waiting on another database's NOTIFY, for an app step's backend.
   */
  const waitingPids = async () => (await observer.unsafe<{ pid: number }[]>(WAITING_HERE)).map((r) => r.pid);

  /** What each backend is and does, for an error message. */
  const describe = async (pids: number[]) =>
    JSON.stringify(
      await observer`select pid, backend_type, application_name, state, wait_event_type, wait_event, backend_start,
          xact_start, pg_blocking_pids(pid) as blocked_by, left(query, 300) as query
        from pg_stat_activity where pid = any(${pids})`,
    );

  async function run(sessions: Record<string, Session>, permutation: string[], { withinMs = 10_000 } = {}): Promise<Run> {
    const owner = new Map<string, { session: string; step: SqlStep | AppStep }>();
    for (const [session, spec] of Object.entries(sessions)) {
      for (const [name, step] of Object.entries(spec.steps)) {
        if (owner.has(name)) throw new Error(`step ${name} is named twice`);
        owner.set(name, { session, step });
      }
    }
    const connections = new Map<string, { sql: postgres.ReservedSql; pid: number }>();
    const log: string[] = [];
    const results: Record<string, StepResult> = {};
    const waiting: Running[] = [];
    // A pool per run: its connections end with the run, whatever state its sessions were left in.
    const pool = postgres(url.toString(), { max: Object.keys(sessions).length, onnotice: () => {} });

    /** Until the step is done (true) or waits on a lock (false). */
    async function settleOrBlock(step: Running): Promise<boolean> {
      const deadline = Date.now() + withinMs;
      for (;;) {
        if (step.settled) return true;
        const pids = await waitingPids();
        if (sessions[step.session]!.kind === "app") {
          // Its own backend, else one that waits and belongs to no other session or waiting step.
          const taken = new Set([...[...connections.values()].map((c) => c.pid), ...waiting.filter((w) => w !== step).map((w) => w.pid)]);
          const candidates = pids.filter((pid) => !taken.has(pid));
          if (step.pid === null || !candidates.includes(step.pid)) {
            if (candidates.length > 1) throw new Error(`step ${step.name}: several unknown backends wait: ${await describe(candidates)}`);
            step.pid = candidates[0] ?? step.pid;
          }
        }
        if (step.settled) return true;
        if (step.pid !== null && pids.includes(step.pid)) return false;
        if (Date.now() > deadline) throw new Error(`step ${step.name}: neither done nor waiting on a lock within ${withinMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }

    const finish = (step: Running) => {
      results[step.name] = { session: step.session, blocked: step.blocked, ...step.settled! };
      if (step.blocked) log.push(`step ${step.name} <done>`);
    };

    try {
      for (const [session, spec] of Object.entries(sessions)) {
        if (spec.kind !== "sql") continue;
        const sql = await pool.reserve();
        const [row] = await sql<{ pid: number }[]>`select pg_backend_pid() as pid`;
        connections.set(session, { sql, pid: row!.pid });
      }
      for (const name of permutation) {
        const found = owner.get(name);
        if (!found) throw new Error(`no step named ${name}`);
        if (waiting.some((w) => w.session === found.session)) throw new Error(`step ${name}: its session still waits`);
        const connection = connections.get(found.session);
        const step: Running = { name, session: found.session, pid: connection?.pid ?? null, blocked: false, settled: null };
        (connection ? (found.step as SqlStep)(connection.sql) : (found.step as AppStep)()).then(
          (value) => (step.settled = { ok: true, value }),
          (error) => (step.settled = { ok: false, error }),
        );
        if (await settleOrBlock(step)) {
          log.push(`step ${name}`);
          finish(step);
        } else {
          step.blocked = true;
          log.push(`step ${name} <waiting>`);
          waiting.push(step);
        }
        // This step may have freed waiting ones: each finishes or waits again, in the order they started.
        for (const other of [...waiting]) {
          if (await settleOrBlock(other)) {
            waiting.splice(waiting.indexOf(other), 1);
            finish(other);
          }
        }
      }
      if (waiting.length) throw new Error(`the permutation ends with steps still waiting: ${waiting.map((w) => w.name).join(", ")}`);
      return { log, results };
    } finally {
      // A session left mid-transaction (or waiting) ends with its backend, and its locks with it.
      for (const { sql, pid } of connections.values()) {
        await observer`select pg_terminate_backend(${pid})`.catch(() => {});
        sql.release();
      }
      await pool.end({ timeout: 1 });
    }
  }

  return {
    run,
    async close() {
      await observer.end({ timeout: 5 });
    },
  };
}
