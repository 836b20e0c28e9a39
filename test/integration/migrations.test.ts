// The committed migrations applied to a database that already holds data: notifications.data becomes
// jsonb without losing a value the API could show (text that was not JSON was shown as null, and is null),
// and notification_counts starts out counting the notifications already there.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrationsFolder } from "../../db/client.js";
import { notifications } from "../../db/schema/index.js";
import { dataObject } from "../../server/notifications/view.js";
import { openTestDb, type TestDb } from "../helpers/db.js";
import { countedCounters, storedCounters } from "../helpers/notification-counts.js";

/** A copy of the migrations folder that stops before the migration tagged `before`. */
function migrationsUpTo(before: string): string {
  const dir = mkdtempSync(join(tmpdir(), "rn-migrations-"));
  cpSync(migrationsFolder, dir, { recursive: true });
  const journalFile = join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e) => e.tag === before),
  );
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

describe("migration 0003: notifications.data as jsonb", () => {
  let db: TestDb;
  let earlier: string;
  beforeAll(async () => {
    db = await openTestDb({ migrated: false });
    earlier = migrationsUpTo("0003_typed_columns");
  });
  afterAll(async () => {
    await db?.close();
    rmSync(earlier, { recursive: true, force: true });
  });

  it("keeps JSON values, turns text that is not JSON into null, and then refuses a category outside the list", async () => {
    await db.migrate(earlier);
    await db.db.execute(sql`insert into users (id, name, email) values ('u1', 'U', 'u1@test.local')`);
    const texts = ['{"url":"https://app.example.test/x"}', "{not json", "42", null];
    for (const [i, data] of texts.entries()) {
      await db.db.execute(sql`insert into notifications (user_id, event_type, category, title, data, date_created)
        values ('u1', 'message.received', 'messages', ${`n${i}`}, ${data}, now() - make_interval(secs => ${i}))`);
    }

    await db.migrate();
    const rows = await db.db.select().from(notifications).orderBy(asc(notifications.title));
    expect(rows.map((r) => r.data)).toEqual([{ url: "https://app.example.test/x" }, null, 42, null]);
    expect(rows.map((r) => dataObject(r.data))).toEqual([{ url: "https://app.example.test/x" }, null, null, null]);

    await expect(
      db.db.execute(sql`insert into notifications (user_id, event_type, category, title) values ('u1', 'x', 'spam', 't')`),
    ).rejects.toThrow();
  });
});

describe("migration 0007: notification_counts", () => {
  let db: TestDb;
  let earlier: string;
  beforeAll(async () => {
    db = await openTestDb({ migrated: false });
    earlier = migrationsUpTo("0007_notification_counts");
  });
  afterAll(async () => {
    await db?.close();
    rmSync(earlier, { recursive: true, force: true });
  });

  it("counts the rows already there, visible and unread, per user and category", async () => {
    await db.migrate(earlier);
    await db.db.execute(sql`insert into users (id, name, email) values ('u1', 'U1', 'u1@test.local'), ('u2', 'U2', 'u2@test.local')`);
    await db.db.execute(sql`insert into notifications (user_id, event_type, category, title, read_at, deleted_at) values
      ('u1', 'message.received', 'messages', 'unread', null, null),
      ('u1', 'message.received', 'messages', 'read', now(), null),
      ('u1', 'message.received', 'messages', 'deleted', null, now()),
      ('u1', 'invoice.paid', 'billing', 'read', now(), null),
      ('u2', 'invoice.paid', 'billing', 'deleted', now(), now())`);

    await db.migrate();
    expect(await storedCounters(db.db)).toEqual({
      "u1/messages": { total: 2, unread: 1 },
      "u1/billing": { total: 1, unread: 0 },
    });
    // And from there on the triggers keep them.
    await db.db.execute(sql`update notifications set deleted_at = null where user_id = 'u2'`);
    expect(await storedCounters(db.db)).toEqual(await countedCounters(db.db));
    expect(await storedCounters(db.db)).toHaveProperty("u2/billing", { total: 1, unread: 0 });
  });
});
