// Migration 0016 on a database that already holds keys: each keeps its name as its producer, so no producer's
// events change hands, and working keys that shared a name are told apart before one name means one key.
import { rmSync } from "node:fs";
import { asc, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../db/schema/index.js";
import { migrationsBefore, openTestDb, type TestDb } from "../helpers/db.js";

const TAG = "0016_api_key_producer";

describe(`migration ${TAG}`, () => {
  let db: TestDb;
  let earlier: string;
  beforeAll(async () => {
    db = await openTestDb({ migrated: false });
    earlier = migrationsBefore(TAG);
  });
  afterAll(async () => {
    await db?.close();
    rmSync(earlier, { recursive: true, force: true });
  });

  it("gives every key its name as producer, renames all but the oldest working key of a shared name, then holds names unique", async () => {
    await db.migrate(earlier);
    /** A key row; after the migration with its producer, which is then required. */
    const key = (id: string, name: string, minutesAgo: number, revoked: boolean, producer?: string) => sql`
      insert into api_keys (id, name, scopes, prefix, secret_hash, created_by_id, created_by_email, created_at, revoked_at
                            ${producer ? sql`, producer` : sql``})
      values (${id}::uuid, ${name}, array['notifications:write'], 'rk_x', ${`hash-${id}`}, 'a', 'a@test.local',
              now() - make_interval(mins => ${minutesAgo}), ${revoked ? sql`now()` : null} ${producer ? sql`, ${producer}` : sql``})`;
    await db.db.execute(key("00000000-0000-4000-8000-000000000001", "messaging", 30, false));
    await db.db.execute(key("00000000-0000-4000-8000-000000000002", "messaging", 20, false));
    await db.db.execute(key("00000000-0000-4000-8000-000000000003", "messaging", 40, true));
    await db.db.execute(key("00000000-0000-4000-8000-000000000004", "billing", 10, false));

    await db.migrate();
    const rows = await db.db.select({ name: apiKeys.name, producer: apiKeys.producer }).from(apiKeys).orderBy(asc(apiKeys.id));
    expect(rows).toEqual([
      { name: "messaging", producer: "messaging" },
      { name: "messaging (00000000)", producer: "messaging" },
      { name: "messaging", producer: "messaging" },
      { name: "billing", producer: "billing" },
    ]);
    // A second working "billing" breaks the unique index (23505); a revoked one may share the name.
    await expect(db.db.execute(key("00000000-0000-4000-8000-000000000005", "billing", 0, false, "billing"))).rejects.toMatchObject({
      cause: { code: "23505" },
    });
    await db.db.execute(key("00000000-0000-4000-8000-000000000006", "billing", 0, true, "billing"));
  });
});
