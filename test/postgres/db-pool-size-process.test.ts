// DB_POOL_SIZE (docs/operators.md#configuration) reaches the real server's pool: with 2, six inbox pages sent
// while the test holds a lock they need are served by two connections. Two wait on the lock, the other four
// wait for a connection, and all six are answered once the lock goes; no third connection is ever opened.
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { testDbKind } from "../helpers/db.js";
import { call } from "../helpers/producer-process.js";
import { type ServerProcess, startServerProcess, useProcessDatabase } from "../helpers/server-process.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

const POOL_SIZE = 2;
const PAGES = 6;
/** The test's own connections, told apart from the server's by this name. */
const TEST_CONNECTION = "pool-size-test";

describe("DB_POOL_SIZE on the server process (PostgreSQL)", () => {
  const env = useProcessDatabase();
  let server: ServerProcess | undefined;
  let admin: postgres.Sql | undefined;
  let release = () => {};
  afterAll(async () => {
    // The lock first: stopping the server waits for the requests that wait on it.
    release();
    await admin?.end();
    await server?.stop();
  });

  it("serves every request through at most DB_POOL_SIZE connections, the rest waiting for one", async () => {
    server = await startServerProcess({ ...env(), DB_POOL_SIZE: String(POOL_SIZE), LOG_LEVEL: "error" });
    // Two connections: one holds the lock in a transaction, the other looks at pg_stat_activity.
    admin = postgres(env().DATABASE_URL!, { max: 2, onnotice: () => {}, connection: { application_name: TEST_CONNECTION } });
    const sql = admin;
    const signUp = await call(server, "POST", "/api/auth/sign-up/email", {
      name: "Pool",
      email: "pool@example.com",
      password: "a-long-user-password",
    });
    expect(signUp.status).toBe(200);
    const headers = { authorization: `Bearer ${signUp.body!.token}` };

    /** The server's connections but the LISTEN one and the relay candidate's: its pool's. */
    const poolConnections = async () => {
      const rows = await sql<{ pid: number; waiting: boolean }[]>`
        select pid, wait_event_type = 'Lock' as waiting from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend'
          and application_name not in (${TEST_CONNECTION}, 'outbox-relay') and query not ilike 'listen %'`;
      return { open: rows.length, waiting: rows.filter((r) => r.waiting).length };
    };

    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = sql.begin(async (tx) => {
      await tx`lock table notifications, notification_counts in access exclusive mode`;
      locked();
      await released;
    });
    await lockTaken;

    const pages = Array.from({ length: PAGES }, () => fetch(`${server!.url}/api/notifications?limit=5`, { headers }).then((r) => r.status));
    await waitFor(poolConnections, (c) => c.waiting === POOL_SIZE, { withinMs: 20_000, what: "two pages waiting on the lock" });
    release();
    await holder;
    expect(await Promise.all(pages)).toEqual(Array(PAGES).fill(200));
    // Idle connections stay open for 30 s: every connection the six pages used is still counted here.
    expect((await poolConnections()).open).toBeLessThanOrEqual(POOL_SIZE);
  });
});
