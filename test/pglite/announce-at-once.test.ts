// PGlite keeps announcing at once, in-process (issue V): one process has no commit flush to share, so the
// change outbox stays empty and no relay or poll runs (migration 0018's announce(), db/client.ts).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeOutbox } from "../../db/schema/index.js";
import { announcedItems } from "../../server/live/change-feed.js";
import { openTestDb, type TestDb, testDbKind } from "../helpers/db.js";
import { ensureUsers, newUsers } from "../helpers/notification-counts.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "pglite") throw new Error("test/pglite runs on the embedded PGlite only (the pglite project)");

describe("announcements on PGlite", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(async () => db?.close());

  it("a raw write is announced at its commit, with nothing left in the outbox", async () => {
    const people = newUsers(3);
    await ensureUsers(db.db, people);
    const heard: string[] = [];
    const stop = await db.listen("unread_count", (payload) => heard.push(...announcedItems(payload)));
    try {
      const ids = people.map((person) => person.id);
      await db.db.execute(sql`
        insert into notifications (user_id, event_type, category, title)
        select id, 'message.received', 'messages', 'raw' from users where id in ${ids}`);
      await waitFor(
        async () => new Set(heard),
        (set) => ids.every((id) => set.has(id)),
        { withinMs: 2_000, what: "the three users announced" },
      );
      expect(await db.db.$count(changeOutbox)).toBe(0);
    } finally {
      await stop();
    }
  });
});
