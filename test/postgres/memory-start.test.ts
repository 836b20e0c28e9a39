// Memory is never served stale after a start, even when changes commit while it loads (issue W,
// server/memory/flags.ts). PostgreSQL only: PGlite cannot commit beside a load in another process.
//
// The interleaving is forced, not raced. A second instance starts on a table of 300,000 stored statuses, so
// its load (one SELECT, read and kept row by row) takes a while. The moment that SELECT holds its snapshot
// (pg_stat_activity.backend_xmin is set), a pro's status is flipped by hand: the load cannot see it, and the
// announcement of it reaches the starting instance while the load runs. Red when the instance listens only
// after loading: that change is never heard, and memory serves the snapshot's status. (Here, in one process,
// the pro's re-read lands after the load's rows; test/unit/memory-flags-load.test.ts forces the other order.)
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insertApiKey } from "../helpers/api-keys.js";
import { createTestApp, type TestApp, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { registeredPro } from "../helpers/fixtures.js";
import { answeredFrom } from "../helpers/memory.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

/** Enough stored statuses that loading them takes far longer than hearing and reading one change. */
const STORED = 300_000;

describe("a start while changes are committed (PostgreSQL)", () => {
  const t = useTestApp();

  it("a change committed after the load's snapshot is served, not the snapshot's status", { timeout: 120_000 }, async () => {
    const db = t().db.db;
    const key = await insertApiKey(db);
    const proId = await registeredPro(db);
    // Loaded as a restore would: without announcing 300,000 pros to the instance already running.
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`insert into pro_restriction_status (pro_id, restriction_active)
        select 'pro-load-' || g, g % 2 = 0 from generate_series(1, ${STORED}) g`);
    });
    await db.execute(sql`insert into pro_restriction_status (pro_id, restriction_active) values (${proId}, false)`);

    // The load's SELECT, once it holds its snapshot; then the change, which that snapshot cannot see.
    const changedDuringLoad = (async () => {
      await waitFor(
        () =>
          db.execute(sql`select pid from pg_stat_activity
            where query like '%from "pro_restriction_status" where true /* memory */%' and backend_xmin is not null
              and pid <> pg_backend_pid()`),
        (rows) => (rows as unknown[]).length > 0,
        { withinMs: 60_000, what: "the starting instance's load holding its snapshot" },
      );
      await db.execute(sql`update pro_restriction_status set restriction_active = true where pro_id = ${proId}`);
    })();
    let second: TestApp | undefined;
    try {
      second = await createTestApp({ db: t().db });
      await changedDuringLoad;
      const fromMemory = await waitFor(
        () =>
          answeredFrom("pro_status", async () => {
            const answer = await ofrep(() => second!).evaluate({ headers: key.headers, body: forPro(proId) });
            return (answer.json() as { value: boolean }).value;
          }),
        (answer) => answer.source === "memory",
        { withinMs: 10_000, what: "the started instance answering from memory" },
      );
      expect(fromMemory.value).toBe(true);
    } finally {
      await changedDuringLoad.catch(() => {});
      await second?.app.close();
    }
  });
});
