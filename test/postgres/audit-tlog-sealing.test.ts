// Sealing the audit log under concurrency (docs/guarantees.md "Audit log"), on PostgreSQL where transactions
// really overlap: an event that commits after a later one was sealed is still sealed, once; two instances
// sealing at once give every event one leaf; a sealer killed mid-seal leaves the tree as it was.
import { sql } from "drizzle-orm";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type DbHandle } from "../../db/client.js";
import { sealAll, sealBatch } from "../../server/audit/sealer.js";
import { readHead } from "../../server/audit/tree.js";
import { logIsWhole, writeEvent } from "../helpers/audit-log.js";
import { openTestDb, otherSession, type TestDb } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

let db: TestDb;
let session: postgres.Sql;
/** A second instance of the service on the same database: a pool of its own. */
let second: DbHandle;

beforeAll(async () => {
  db = await openTestDb();
  session = await otherSession(db, 3);
  const [row] = (await db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${row!.name}`;
  second = await createDb({ databaseUrl: url.toString(), maxConnections: 4 });
}, 60_000);
afterAll(async () => {
  await second?.close();
  await session?.end();
  await db?.close();
});

/** A writer's transaction that has inserted its event and waits to be told to commit. */
async function openWriter(id: string) {
  let commit!: () => void;
  let inserted!: () => void;
  const insertedNow = new Promise<void>((resolve) => {
    inserted = resolve;
  });
  const done = session.begin(async (tx) => {
    await tx`insert into audit_events (id, actor_id, actor_email, action, target_type, target_id)
      values (${id}, 'slow-writer', 'slow@test.local', 'cohort.create', 'cohort', ${id})`;
    inserted();
    await new Promise<void>((resolve) => {
      commit = resolve;
    });
  });
  await insertedNow;
  return {
    commit: async () => {
      commit();
      await done;
    },
  };
}

describe("sealing in commit order", () => {
  it("an event with a lower id that commits after a higher one was sealed gets the next leaf, once", async () => {
    const slowId = crypto.randomUUID();
    const slow = await openWriter(slowId);
    const fastId = await writeEvent(db.db, "commits first");
    await sealAll(db.db);
    expect((await logIsWhole(db.db)).eventIds.at(-1)).toBe(fastId);

    await slow.commit();
    const seqs = (await db.db.execute(sql`select id from audit_events where id in (${slowId}, ${fastId}) order by seq`)) as unknown as {
      id: string;
    }[];
    expect(seqs.map((r) => r.id)).toEqual([slowId, fastId]);
    await sealAll(db.db);
    const { eventIds } = await logIsWhole(db.db);
    expect(eventIds.slice(-2)).toEqual([fastId, slowId]);
    expect(new Set(eventIds).size).toBe(eventIds.length);
  });
});

describe("several instances", () => {
  it("one seals at a time: while another holds the head, a seal skips its turn instead of waiting", async () => {
    await writeEvent(db.db);
    const release = await holdHead();
    try {
      expect(await sealBatch(second.db)).toEqual({ busy: true });
    } finally {
      await release();
    }
    expect(await sealBatch(second.db)).toMatchObject({ busy: false });
  });

  it("writers on both and sealers on both at once: every event gets exactly one leaf, and the head's root is theirs", async () => {
    await sealAll(db.db);
    const before = (await readHead(db.db)).size;
    const ids: string[] = [];
    const writers = Array.from({ length: 40 }, (_, i) => writeEvent(i % 2 ? db.db : second.db, `w${i}`).then((id) => ids.push(id)));
    const sealers = Array.from({ length: 6 }, (_, i) => sealAll(i % 2 ? db.db : second.db));
    await Promise.all([...writers, ...sealers]);
    await sealAll(db.db);
    const { size, eventIds } = await logIsWhole(db.db);
    expect(size).toBe(before + 40);
    expect(new Set(eventIds).size).toBe(size);
    expect(eventIds.slice(before).sort()).toEqual([...ids].sort());
  });
});

describe("a sealer killed mid-seal", () => {
  it("leaves the tree as it was; the next seal seals every event once", async () => {
    await sealAll(db.db);
    const ids = [await writeEvent(db.db), await writeEvent(db.db)];
    const before = await readHead(db.db);
    // The sealer will block deleting its events from the queue: a row lock another session holds.
    const lock = session.reserve();
    const locker = await lock;
    await locker`begin`;
    await locker`select 1 from audit_unsealed where event_id = ${ids[0]!} for update`;
    const victim = await createDb({
      databaseUrl: new URL(process.env.TEST_DATABASE_URL!).toString().replace(/\/[^/]*$/, `/${await dbName()}`),
      maxConnections: 1,
    });
    const sealing = sealBatch(victim.db).then(
      () => "sealed",
      () => "failed",
    );
    const [blocked] = await waitFor(
      () => session<{ pid: number }[]>`select pid from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like 'delete from "audit_unsealed"%'`,
      (rows) => rows.length === 1,
      { withinMs: 10_000, what: "the sealer blocked mid-seal" },
    );
    // It has written leaves and nodes in its transaction by now; it dies before committing them.
    await session`select pg_terminate_backend(${blocked!.pid})`;
    expect(await sealing).toBe("failed");
    await locker`rollback`;
    locker.release();
    await victim.close();

    expect(await readHead(db.db)).toEqual(before);
    await sealAll(db.db);
    const { eventIds } = await logIsWhole(db.db);
    expect(eventIds.slice(-2).sort()).toEqual([...ids].sort());
    expect(new Set(eventIds).size).toBe(eventIds.length);
  });
});

async function dbName(): Promise<string> {
  const [row] = (await db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
  return row!.name;
}

/** Holds the head row as a sealer in the middle of a seal does; answers how to let go. */
async function holdHead(): Promise<() => Promise<void>> {
  const held = await session.reserve();
  await held`begin`;
  await held`select 1 from audit_log_head where id = 1 for update`;
  return async () => {
    await held`rollback`;
    held.release();
  };
}
