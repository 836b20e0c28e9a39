// patches/postgres+3.4.9.patch, tested on postgres.js alone (no Drizzle, no server): what each change fixes,
// each case deterministic. bench/postgres-terminate.ts is the load reproduction it came from (issue R):
// without the patch, 7 of 10 runs there left a query that never settled.
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import fc from "fast-check";
import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { testDbKind } from "../helpers/db.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = new URL(process.env.TEST_DATABASE_URL);

type Pool = postgres.Sql;
const pools: Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((sql) => sql.end({ timeout: 0 })));
});

/** A pool of one connection whose sockets the test can reach (postgres.js's `socket` option). */
function poolOfOne(options: Partial<postgres.Options<Record<string, never>>> = {}) {
  const sockets: Socket[] = [];
  // `socket` (a connected socket per connection) is an option postgres.js has but does not declare.
  const socket = async () => {
    const s = connect(Number(serverUrl.port || 5432), serverUrl.hostname);
    await once(s, "connect");
    sockets.push(s);
    return s;
  };
  const sql = postgres(serverUrl.toString(), {
    max: 1,
    fetch_types: false,
    onnotice: () => {},
    ...options,
    ...({ socket } as object),
  });
  pools.push(sql);
  return { sql, sockets };
}

const backendPid = async (sql: Pool) => (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;

/** A query's outcome, without letting a rejection go unhandled. */
const outcome = (query: Promise<unknown>) =>
  query.then(
    () => "answered",
    (err: { code?: string }) => `failed: ${err.code}`,
  );

describe("postgres.js with patches/postgres+3.4.9.patch", () => {
  it("settles a query handed to a connection between its socket's 'error' and 'close'", async () => {
    const { sql, sockets } = poolOfOne();
    await sql`select 1`;
    const running = outcome(sql`select pg_sleep(5)`);
    await new Promise((resolve) => setImmediate(resolve));

    // The socket fails while a query runs. Node emits 'error' and, a tick later, 'close'; in between the
    // pool still lists the connection as busy and pipelines a query onto it (as a request's next
    // statement does when the previous one was just rejected).
    let lateQuery: Promise<string> | null = null;
    const socket = sockets[0]!;
    socket.on("error", () => {
      lateQuery = outcome(sql`select 2`);
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    expect(await running).toBe("failed: ECONNRESET");
    await closed;

    // The pool comes back for the next query; by the time it has answered, the late query has settled.
    // Unpatched, the late query stayed in the connection's `sent` queue and the next session, taking it
    // for its own, waited for its answer forever: this `await` never returned.
    expect(await outcome(sql`select 3`)).toBe("answered");
    const settled = await Promise.race([lateQuery!, Promise.resolve("still pending")]);
    expect(settled).toBe("failed: CONNECTION_CLOSED");
  });

  it("does not fail the next session's first query with the error that ended the last one", async () => {
    const { sql } = poolOfOne();
    const pid = await backendPid(sql);
    const running = outcome(sql`select pg_sleep(5)`);
    const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
    pools.push(admin);
    // The server ends the session: a FATAL 57P01 error response, then the socket closes.
    await admin`select pg_terminate_backend(${pid})`;
    expect(await running).toMatch(/^failed: (57P01|CONNECTION_CLOSED)$/);

    // Unpatched, the dead session's error response was still held and failed this query with 57P01.
    expect(await outcome(sql`select 1`)).toBe("answered");
  });

  // A query that fails after some of its rows have arrived left the connection's row index where it stopped,
  // so the next query's rows began there: it resolved with holes at the front (porsager/postgres#1119,
  // #1181). Behind Drizzle that read as no row at all: an unread count of 0, a valid session not found.
  it("the query after one that failed mid-rows gets its own rows from the first index", async () => {
    const { sql } = poolOfOne();
    // Three rows are sent before the fourth divides by zero.
    const failing = outcome(sql`select 1 / (4 - i) as n from generate_series(1, 10) i`);
    const next = sql<{ x: number }[]>`select x from generate_series(1, 2) x`;
    expect(await failing).toBe("failed: 22012");
    const rows = await next;
    expect(Object.keys(rows)).toEqual(["0", "1"]);
    expect(rows.map((r) => r.x)).toEqual([1, 2]);
  });

  it("the next session's first query gets its rows from the first index after a session ended mid-rows", async () => {
    const { sql, sockets } = poolOfOne();
    await sql`select 1`;
    // Rows stream while the connection is lost: the socket closes after the first chunk of them.
    const streaming = sql`select i from generate_series(1, 200000) i`;
    const socket = sockets[0]!;
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.once("data", () => socket.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })));
    expect(await outcome(streaming)).toBe("failed: ECONNRESET");
    await closed;

    const rows = await sql<{ x: number }[]>`select x from generate_series(1, 2) x`;
    expect(Object.keys(rows)).toEqual(["0", "1"]);
    expect(rows.map((r) => r.x)).toEqual([1, 2]);
  });

  // The search behind the two cases above: any mix of pipelined queries, some failing after k of their rows.
  it("every query that succeeds answers exactly its own rows, whatever failed before it (property)", async () => {
    const { sql } = poolOfOne();
    const act = fc.oneof(
      fc.record({ kind: fc.constant("rows" as const), n: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant("fails after" as const), n: fc.integer({ min: 0, max: 5 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(act, { minLength: 1, maxLength: 8 }), async (acts) => {
        // Sent together, so postgres.js pipelines them on its one connection.
        const answers = await Promise.all(
          acts.map(({ kind, n }) =>
            kind === "rows"
              ? sql<{ x: number }[]>`select x from generate_series(1, ${n}::int) x`.then((rows) => [...rows].map((r) => r?.x))
              : // Rows 1..n arrive, then row n + 1 divides by zero.
                outcome(sql`select 1 / (${n + 1}::int - i) from generate_series(1, ${n + 5}::int) i`),
          ),
        );
        answers.forEach((answer, i) => {
          const { kind, n } = acts[i]!;
          expect(answer).toEqual(kind === "rows" ? Array.from({ length: n }, (_, j) => j + 1) : "failed: 22012");
        });
      }),
      { numRuns: 60 },
    );
  });

  it("query_timeout: a query without an answer in time fails, its connection is replaced", async () => {
    const { sql, sockets } = poolOfOne({ query_timeout: 1 });
    const before = await backendPid(sql);
    // pg_sleep stands for a server that no longer answers (a partition, a hung proxy).
    const stuck = outcome(sql`select pg_sleep(30)`);
    const queued = outcome(sql`select 'queued behind it'`);
    expect(await stuck).toBe("failed: QUERY_TIMEOUT");
    expect(await queued).toBe("failed: QUERY_TIMEOUT");
    expect(sockets[0]!.destroyed).toBe(true);

    expect(await backendPid(sql)).not.toBe(before);
  });

  it("query_timeout counts from the query's own start, not from the queue's", async () => {
    // Five pipelined queries of 0.3 s each: 1.5 s in all, each well within the 1 s bound.
    const { sql } = poolOfOne({ query_timeout: 1 });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => outcome(sql`select pg_sleep(0.3)`)));
    expect(answers).toEqual(Array(5).fill("answered"));
  });
});
