// The unread count and the list's counts read a user's notification_counts rows by primary key
// (migration 0007), so a user with thousands of notifications costs what one with a dozen does: the
// statements the service sends, run again under EXPLAIN ANALYZE, read the same number of rows for both.
// The list page itself reads its `limit` rows from the inbox index; only a search total counts rows.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATEGORIES } from "../../db/categories.js";
import { openTestDb, type Statement, type TestDb } from "../helpers/db.js";
import { ensureUsers, inboxOf, newUsers } from "../helpers/notification-counts.js";
import { planReads } from "../helpers/plans.js";

const HOT_ROWS = 3_000;
const COLD_ROWS = 12; // two per category, as the hot user has every category too
const BYSTANDERS = 200;

describe(`counts read by primary key (${process.env.TEST_DB ?? "pglite"})`, () => {
  let db: TestDb;
  const [hot, cold, ...bystanders] = newUsers(2 + BYSTANDERS);

  const categoryArray = sql.raw(`array[${CATEGORIES.map((c) => `'${c}'`).join(", ")}]`);
  /** `n` notifications of `userId` over every category, a third of them read, one in ten deleted. */
  const seed = (userId: string, n: number) =>
    db.db.execute(sql`
      insert into notifications (user_id, event_type, category, title, body, date_created, read_at, deleted_at)
      select ${userId}, 'test.plan', (${categoryArray})[1 + i % ${CATEGORIES.length}], 'Title ' || i, 'Body ' || i,
             now() - make_interval(secs => i), case when i % 3 = 0 then now() end, case when i % 10 = 9 then now() end
      from generate_series(0, ${n - 1}) i`);

  beforeAll(async () => {
    db = await openTestDb();
    await ensureUsers(db.db, [hot!, cold!, ...bystanders]);
    await seed(hot!.id, HOT_ROWS);
    await seed(cold!.id, COLD_ROWS);
    // Everyone else's rows, so the counts table is not a page the planner would rather scan whole.
    for (const b of bystanders) await seed(b.id, 6);
    await db.db.execute(sql`analyze`);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  /** The one statement `run` sends. */
  async function onlyStatement(run: () => Promise<unknown>): Promise<Statement> {
    const statements = await db.capture(run);
    expect(statements).toHaveLength(1);
    return statements[0]!;
  }

  it("unreadCount reads the user's counts rows through notification_counts_pkey, and no notification", async () => {
    for (const user of [hot!, cold!]) {
      const reads = await planReads(db, await onlyStatement(() => inboxOf(db.db, user).unreadCount()));
      expect(reads.indexes).toContain("notification_counts_pkey");
      expect(reads.rows).toEqual({ notification_counts: CATEGORIES.length });
    }
  });

  it.each([
    ["the whole inbox", {}],
    ["one category", { category: "messages" }],
  ])("list of %s reads the counts by primary key and only the page of notifications, as much for 3,000 as for 12", async (_, filter) => {
    const readsOf = async (user: typeof hot) =>
      planReads(db, await onlyStatement(() => inboxOf(db.db, user!).list({ ...filter, limit: 2 })));
    const [ofHot, ofCold] = [await readsOf(hot), await readsOf(cold)];
    expect(ofHot.indexes).toContain("notification_counts_pkey");
    expect(ofHot.rows).toEqual({ notification_counts: CATEGORIES.length, notifications: 2 });
    expect(ofCold.rows).toEqual(ofHot.rows);
  });

  it("answers the counts in the same single statement on an empty page past the end", async () => {
    let list: Awaited<ReturnType<ReturnType<typeof inboxOf>["list"]>> | undefined;
    await onlyStatement(async () => {
      list = await inboxOf(db.db, cold!).list({ page: 50, limit: 10 });
    });
    // 12 rows, every tenth deleted (one), every third read (four, one of them deleted).
    expect(list).toMatchObject({ notifications: [], total: 11, unread_count: 8, page: 50, has_more: false });
  });

  it("still counts the matching rows for a search total, which no counter can know", async () => {
    const statement = await onlyStatement(() => inboxOf(db.db, hot!).list({ search: "Body 1", limit: 2 }));
    const reads = await planReads(db, statement);
    expect(reads.indexes).toContain("notification_counts_pkey");
    expect(reads.rows.notifications).toBeGreaterThan(2);
  });
});
