// The console's Deliveries view filtered by user reads that user's events through notification_events_user_idx
// (migration 0015), newest first, not every producer's events: the statement the service sends, run again
// under EXPLAIN ANALYZE, reads about the user's own rows however many others there are.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContextInner } from "../../server/context.js";
import { recentEvents } from "../../server/notifications/deliveries.js";
import { createPushService } from "../../server/push/sender.js";
import { openTestDb, type TestDb } from "../helpers/db.js";
import { ensureUsers, newUsers } from "../helpers/notification-counts.js";
import { planReads } from "../helpers/plans.js";

const OTHERS_EVENTS = 3_000;
const THEIRS = 5;

describe(`deliveries view by user (${process.env.TEST_DB ?? "pglite"})`, () => {
  let db: TestDb;
  const [user, other] = newUsers(2);
  const seed = (userId: string, n: number, prefix: string) =>
    db.db.execute(sql`
      insert into notification_events (producer, event_id, user_id, created_at)
      select 'plan', ${prefix} || i, ${userId}, now() - make_interval(secs => i) from generate_series(1, ${n}) i`);

  beforeAll(async () => {
    db = await openTestDb();
    await ensureUsers(db.db, [user!, other!]);
    await seed(other!.id, OTHERS_EVENTS, "other-");
    await seed(user!.id, THEIRS, "theirs-");
    await db.db.execute(sql`analyze`);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  it("reads the user's events through notification_events_user_idx", async () => {
    const ctx = createContextInner({ db: db.db, push: createPushService({ vapid: null }) });
    let answer: Awaited<ReturnType<typeof recentEvents>> | undefined;
    const statements = await db.capture(async () => {
      answer = await recentEvents({ ctx, input: { userId: user!.id, limit: 50 } } as never);
    });
    expect(answer!.events).toHaveLength(THEIRS);
    const reads = await planReads(db, statements.find((s) => /from "notification_events"/.test(s.query))!);
    expect(reads.indexes).toContain("notification_events_user_idx");
    expect(reads.rows.notification_events).toBeLessThanOrEqual(THEIRS);
  });
});
