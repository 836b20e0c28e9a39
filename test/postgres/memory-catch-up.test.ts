// A catch-up that fails never serves the copy from before the gap (issue Y, finding 1), from outside: the
// LISTEN backend is terminated while the database refuses new connections, a status is set in the gap, and
// when connections return the catch-up's reload waits on a lock the test holds until its deadline ends it.
// Before the fix the hold was released anyway and memory served the old status for good; now the hold stays
// and the reload is tried again. The memory interleaving search (test/unit/memory-interleavings.test.ts)
// finds the same defect in the fake database.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey, type TestApiKey } from "../helpers/api-keys.js";
import { type TestApp, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { registeredPro } from "../helpers/fixtures.js";
import { answeredFrom } from "../helpers/memory.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("a catch-up whose reload fails (PostgreSQL)", () => {
  const t = useTestApp({ dbQueryTimeoutSeconds: 2 });
  let database: string;
  let server: postgres.Sql;
  /** A session on the app's database opened before it refuses connections: it holds the lock. */
  let locker: postgres.Sql;

  beforeAll(async () => {
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    database = row!.name;
    server = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    locker = postgres(process.env.TEST_DATABASE_URL!.replace(/\/[^/]*$/, `/${database}`), { max: 1, onnotice: () => {} });
    await locker`select 1`;
  });
  afterAll(async () => {
    await server?.unsafe(`alter database ${database} allow_connections true`);
    await locker?.end();
    await server?.end();
  });

  const evaluate = (app: TestApp, key: TestApiKey, proId: string) =>
    answeredFrom("pro_status", async () => {
      const answer = await ofrep(() => app).evaluate({ headers: key.headers, body: forPro(proId) });
      expect(answer.statusCode).toBe(200);
      return (answer.json() as { value: boolean }).value;
    });
  /** The catch-up's reload, waiting on the test's lock: when it started, or undefined. */
  const waitingReload = async () => {
    const rows = await server`
      select query_start::text as started from pg_stat_activity
      where datname = ${database} and wait_event_type = 'Lock' and query ilike '%pro_restriction_status%/* memory */%'`;
    return rows[0]?.started as string | undefined;
  };

  it("keeps memory held and reloads again: the change made in the gap is served, never the old status", async () => {
    const key = await insertApiKey(t().db.db);
    const proId = await registeredPro(t().db.db);
    await waitFor(
      () => evaluate(t(), key, proId),
      (a) => a.source === "memory" && a.value === false,
      { withinMs: 5000, what: "memory answering false" },
    );
    const [listener] = await server`select pid from pg_stat_activity where datname = ${database} and query ilike 'listen %'`;
    await server.unsafe(`alter database ${database} allow_connections false`);
    await server`select pg_terminate_backend(${listener!.pid as number})`;
    await t().db.db.execute(sql`insert into pro_restriction_status (pro_id, restriction_active) values (${proId}, true)
      on conflict (pro_id) do update set restriction_active = excluded.restriction_active`);

    const holder = await locker.reserve();
    try {
      await holder`begin`;
      await holder`lock table pro_restriction_status in access exclusive mode`;
      await server.unsafe(`alter database ${database} allow_connections true`);
      // The reload waits on the lock until its deadline ends it; then the lock goes.
      const first = await waitFor(waitingReload, (started) => started !== undefined, { withinMs: 10_000, what: "the reload waiting" });
      await waitFor(waitingReload, (started) => started !== first, { withinMs: 10_000, what: "the deadline ending the reload" });
      await holder`rollback`;
    } finally {
      holder.release();
    }

    const fromMemory = await waitFor(
      () => evaluate(t(), key, proId),
      (a) => a.source === "memory",
      { withinMs: 10_000, what: "memory serving again" },
    );
    expect(fromMemory.value).toBe(true);
    for (let i = 0; i < 20; i++) expect((await evaluate(t(), key, proId)).value).toBe(true);
  });
});
