// The isolation harness itself (test/helpers/isolation.ts): a step that waits on another session's lock is
// seen waiting, the next step runs, and the waiting one finishes once the lock is let go.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDb, otherSession, type TestDb, testDbKind } from "../helpers/db.js";
import { appSession, type Isolation, openIsolation, sqlSession } from "../helpers/isolation.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("the isolation harness (PostgreSQL)", () => {
  let db: TestDb;
  let iso: Isolation;
  beforeAll(async () => {
    db = await openTestDb({ migrated: false });
    await db.db.execute(sql`create table counter (id int primary key, n int not null)`);
    iso = await openIsolation(db);
  });
  afterAll(async () => {
    await iso?.close();
    await db?.close();
  });

  it("sees a step wait on a row lock, runs the next step, and lets the waiting one finish", async () => {
    await db.db.execute(sql`insert into counter values (1, 0) on conflict (id) do update set n = 0`);
    const run = await iso.run(
      {
        s1: sqlSession({
          s1begin: (s) => s`begin`,
          s1bump: (s) => s`update counter set n = n + 1 where id = 1`,
          s1commit: (s) => s`commit`,
        }),
        s2: sqlSession({ s2bump: (s) => s`update counter set n = n * 10 where id = 1 returning n` }),
      },
      ["s1begin", "s1bump", "s2bump", "s1commit"],
    );
    expect(run.log).toEqual(["step s1begin", "step s1bump", "step s2bump <waiting>", "step s1commit", "step s2bump <done>"]);
    // The waiting update read the committed row: (0 + 1) * 10.
    expect(run.results.s2bump).toMatchObject({ blocked: true, ok: true, value: [{ n: 10 }] });
  });

  it("runs the same steps in another permutation without waiting", async () => {
    await db.db.execute(sql`insert into counter values (1, 0) on conflict (id) do update set n = 0`);
    const run = await iso.run(
      {
        s1: sqlSession({
          s1begin: (s) => s`begin`,
          s1bump: (s) => s`update counter set n = n + 1 where id = 1`,
          s1commit: (s) => s`commit`,
        }),
        s2: sqlSession({ s2bump: (s) => s`update counter set n = n * 10 where id = 1 returning n` }),
      },
      ["s2bump", "s1begin", "s1bump", "s1commit"],
    );
    expect(run.log).toEqual(["step s2bump", "step s1begin", "step s1bump", "step s1commit"]);
    expect(run.results.s2bump).toMatchObject({ blocked: false, ok: true, value: [{ n: 0 }] });
  });

  it("finds the backend of a step run through the app's pool, and reports its error", async () => {
    await db.db.execute(sql`insert into counter values (1, 0) on conflict (id) do update set n = 0`);
    const run = await iso.run(
      {
        locker: sqlSession({ lock: (s) => s`begin`.then(() => s`lock table counter in exclusive mode`), release: (s) => s`commit` }),
        app: appSession({
          write: () =>
            db.db.transaction(async (tx) => {
              await tx.execute(sql`update counter set n = 5 where id = 1`);
              throw new Error("changed my mind");
            }),
        }),
      },
      ["lock", "write", "release"],
    );
    expect(run.log).toEqual(["step lock", "step write <waiting>", "step release", "step write <done>"]);
    expect(run.results.write).toMatchObject({ blocked: true, ok: false, error: { message: "changed my mind" } });
    expect(await db.db.execute(sql`select n from counter where id = 1`)).toMatchObject([{ n: 0 }]);
  });

  it("leaves out a backend of this database that waits on another database's backend", async () => {
    // As the app's outbox relay waits on NOTIFY's commit lock, which the server shares across databases: here a
    // lock on a shared catalog, held from the server's first database and wanted from this one.
    const elsewhere = postgres(process.env.TEST_DATABASE_URL!, { max: 2, onnotice: () => {} });
    const here = await otherSession(db);
    const holder = await elsewhere.reserve();
    try {
      await holder`begin`;
      await holder`lock table pg_catalog.pg_shdescription in exclusive mode`;
      const bystander = here.begin((s) => s`lock table pg_catalog.pg_shdescription in exclusive mode`);
      // Until the bystander waits (the server's view, polled).
      while (
        (await elsewhere`select from pg_stat_activity where query like '%pg_shdescription%' and wait_event_type = 'Lock'`).length === 0
      );
      const run = await iso.run(
        {
          locker: sqlSession({ lock: (s) => s`begin`.then(() => s`lock table counter in exclusive mode`), release: (s) => s`commit` }),
          app: appSession({ write: () => db.db.execute(sql`update counter set n = 7 where id = 1`) }),
        },
        ["lock", "write", "release"],
      );
      expect(run.log).toEqual(["step lock", "step write <waiting>", "step release", "step write <done>"]);
      await holder`commit`;
      await bystander;
    } finally {
      holder.release();
      await elsewhere.end({ timeout: 1 });
      await here.end({ timeout: 1 });
    }
  });

  it("fails a permutation that ends with a step still waiting", async () => {
    await expect(
      iso.run(
        {
          s1: sqlSession({ s1begin: (s) => s`begin`, s1lock: (s) => s`select * from counter where id = 1 for update` }),
          s2: sqlSession({ s2bump: (s) => s`update counter set n = 1 where id = 1` }),
        },
        ["s1begin", "s1lock", "s2bump"],
      ),
    ).rejects.toThrow("the permutation ends with steps still waiting: s2bump");
  });
});
