// The database bound (db/deadline.ts, docs/guarantees.md "An error means nothing was written"): work past
// its deadline is cancelled and rolled back before its caller hears of it, never commits afterwards, and a
// COMMIT whose answer is lost is reported as unknown. Each fault is placed by the test: a lock held by a
// second session, a pool kept busy, a proxy that cuts the network while COMMIT is in flight.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDb, type DbHandle } from "../../db/client.js";
import { isOutcomeUnknown, isQueryTimeout } from "../../db/errors.js";
import { COUNT_WAITING_HERE, openTestDb, type TestDb, testDbKind } from "../helpers/db.js";
import { type PgProxy, startPgProxy } from "../helpers/pg-proxy.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = new URL(process.env.TEST_DATABASE_URL);
const BOUND_SECONDS = 1;

let base: TestDb;
let databaseUrl: URL;
/** A second session: holds the locks that stand for a database that does not answer. */
let locker: postgres.Sql;

const failure = (work: Promise<unknown>) =>
  work.then(
    () => undefined,
    (err: unknown) => err,
  );
const stored = async () => Number((await locker`select count(*)::int as n from scratch`)[0]!.n);

beforeAll(async () => {
  base = await openTestDb({ migrated: false });
  const [row] = (await base.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
  databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${row!.name}`;
  locker = postgres(databaseUrl.toString(), { max: 1, onnotice: () => {} });
  await locker`create table scratch (id int)`;
});
afterAll(async () => {
  await locker.end();
  await base.close();
});

describe("work past its deadline (PostgreSQL)", () => {
  let handle: DbHandle;
  beforeEach(async () => {
    await locker`truncate scratch`;
    handle = await createDb({ databaseUrl: databaseUrl.toString(), queryTimeoutSeconds: BOUND_SECONDS, maxConnections: 10 });
  });
  afterEach(async () => {
    await locker`rollback`.catch(() => {});
  });

  it("16 transactions behind a lock all fail, and not one of them is stored, even once the pool drains", async () => {
    await locker`begin`;
    await locker`lock table scratch in access exclusive mode`;
    // 16 transactions on 10 connections: ten wait on the lock, six wait for a connection.
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => failure(handle.db.transaction((tx) => tx.execute(sql`insert into scratch values (${i})`)))),
    );
    expect(answers.every(isQueryTimeout)).toBe(true);
    await locker`commit`;
    // A graceful close waits for every query still queued or running: whatever was going to commit, has.
    await handle.close();
    expect(await stored()).toBe(0);
  });

  it("a transaction whose statements each answer in time, but whose whole runs past the deadline, rolls back", async () => {
    const issued = Date.now();
    const error = await failure(
      handle.db.transaction(async (tx) => {
        await tx.execute(sql`insert into scratch values (1)`);
        // The transaction's own work between statements outlasts the deadline (a step, not an assertion of time).
        await waitFor(
          async () => Date.now() - issued,
          (ms) => ms > BOUND_SECONDS * 1000,
          { withinMs: 5000, what: "the deadline" },
        );
        await tx.execute(sql`insert into scratch values (2)`);
      }),
    );
    expect(isQueryTimeout(error)).toBe(true);
    await handle.close();
    expect(await stored()).toBe(0);
  });

  it("a statement still waiting for a connection at its deadline never starts", async () => {
    if (handle.driver !== "postgres") throw new Error("postgres only");
    const pool = handle.client;
    // Every connection of the pool is taken by a transaction of the raw pool (no deadline) that waits on the test.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holders = Array.from({ length: 10 }, () =>
      pool.begin(async (tx) => {
        await tx`select 1`;
        await gate;
      }),
    );
    await waitFor(
      async () =>
        Number(
          (
            await locker`select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'idle in transaction'`
          )[0]!.n,
        ),
      (n) => n === 10,
      { withinMs: 5000, what: "ten transactions holding the pool" },
    );
    const queued = failure(handle.db.execute(sql`insert into scratch values (1)`));
    expect(isQueryTimeout(await queued)).toBe(true);
    release();
    await Promise.all(holders);
    await handle.close();
    expect(await stored()).toBe(0);
  });

  it("PostgreSQL ends a statement waiting on a lock by itself when this process is gone", async () => {
    const proxy = await startPgProxy({ host: serverUrl.hostname, port: Number(serverUrl.port || 5432) });
    const viaProxy = new URL(databaseUrl);
    viaProxy.port = String(proxy.port);
    const remote = await createDb({ databaseUrl: viaProxy.toString(), queryTimeoutSeconds: BOUND_SECONDS, maxConnections: 1 });
    await locker`begin`;
    await locker`lock table scratch in access exclusive mode`;
    const sent = proxy.sent("insert into scratch");
    const orphan = failure(remote.db.execute(sql`insert into scratch values (1)`));
    await sent;
    await waitFor(waitingOnLock, (n) => n === 1, { withinMs: 5000, what: "the insert waiting on the lock" });
    // The network goes, for good: not even a cancel request can reach the server.
    await proxy.close();
    await orphan;
    // The server cancels it at its statement_timeout, with nobody left to ask it to.
    await waitFor(waitingOnLock, (n) => n === 0, { withinMs: 5000, what: "the orphaned insert ended by PostgreSQL" });
    await locker`commit`;
    expect(await stored()).toBe(0);
    await remote.close().catch(() => {});
    await handle.close();
  });
});

const waitingOnLock = async () => Number((await locker.unsafe(COUNT_WAITING_HERE))[0]!.n);

describe("a COMMIT whose answer never comes (PostgreSQL)", () => {
  let proxy: PgProxy;
  let handle: DbHandle;
  beforeAll(async () => {
    // COMMIT runs this deferred trigger, which waits on an advisory lock the test holds: COMMIT is in flight
    // for as long as the test says.
    await locker.unsafe(`
      create or replace function wait_for_release() returns trigger language plpgsql as
        $$ begin perform pg_advisory_xact_lock(4242); return null; end $$;
      create constraint trigger scratch_commit after insert on scratch
        deferrable initially deferred for each row execute function wait_for_release();`);
    proxy = await startPgProxy({ host: serverUrl.hostname, port: Number(serverUrl.port || 5432) });
    const viaProxy = new URL(databaseUrl);
    viaProxy.port = String(proxy.port);
    handle = await createDb({ databaseUrl: viaProxy.toString(), queryTimeoutSeconds: 5, maxConnections: 2 });
  });
  afterAll(async () => {
    await handle.close().catch(() => {});
    await proxy.close();
    await locker.unsafe("drop trigger scratch_commit on scratch");
  });

  it("answers that the outcome is unknown, and the write may indeed have committed", async () => {
    await locker`truncate scratch`;
    await locker`begin`;
    await locker`select pg_advisory_xact_lock(4242)`;
    const committing = proxy.sent("commit");
    const work = failure(handle.db.transaction((tx) => tx.execute(sql`insert into scratch values (1)`)));
    await committing;
    await waitFor(waitingOnLock, (n) => n === 1, { withinMs: 5000, what: "COMMIT waiting in its trigger" });
    proxy.cut();
    const error = await work;
    expect(isOutcomeUnknown(error)).toBe(true);
    expect(isQueryTimeout(error)).toBe(false);
    // The server finishes the COMMIT it received: "unknown" was the truth, "failed" would have been a lie.
    await locker`commit`;
    await waitFor(stored, (n) => n === 1, { withinMs: 5000, what: "the lost COMMIT applied" });
  });
});
