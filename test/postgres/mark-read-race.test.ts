// docs/guarantees.md "Writes and answers": a mark-read answers 200 exactly when the notification is read
// afterwards, keeps the first readAt, and does not write a notification that is already read. Its one
// statement looks at the row, then updates it only while unread; another session's mark or delete forced
// between the look and the update (the isolation harness, test/helpers/isolation.ts) must change neither rule.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifications } from "../../db/schema/index.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { appSession, type Isolation, openIsolation, sqlSession } from "../helpers/isolation.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("mark-read racing another session's change of the same notification (PostgreSQL)", () => {
  const t = useTestApp();
  let iso: Isolation;
  beforeAll(async () => {
    iso = await openIsolation(t().db);
  });
  afterAll(async () => {
    await iso?.close();
  });

  async function unreadNotification(user: TestUser) {
    const [row] = await t()
      .db.db.insert(notifications)
      .values({ userId: user.id, eventType: "message.received", category: "messages", title: "Hello" })
      .returning({ id: notifications.id });
    return row!.id;
  }

  /** The row's readAt and deletedAt, and its version: xmin changes whenever PostgreSQL writes the row. */
  const stored = async (id: string) => {
    const [row] = await t()
      .db.db.select({ readAt: notifications.readAt, deletedAt: notifications.deletedAt, version: sql<string>`xmin::text` })
      .from(notifications)
      .where(eq(notifications.id, id));
    return row!;
  };

  /** Another session that changes the row inside a transaction it holds open until `commit`. */
  const holder = (id: string, change: "read" | "delete") =>
    sqlSession({
      hold: (s) =>
        s`begin`.then(() =>
          change === "read"
            ? s`update notifications set read_at = '2020-01-02T03:04:05Z' where id = ${id}`
            : s`update notifications set deleted_at = now() where id = ${id}`,
        ),
      commit: (s) => s`commit`,
    });

  /** The caller's mark of `id`, sent while another session holds its change of the row uncommitted. */
  async function markWhileHeld(user: TestUser, id: string, change: "read" | "delete") {
    const service = appSession({ mark: () => t().caller(user).notifications.markRead({ id }) });
    const run = await iso.run({ other: holder(id, change), service }, ["hold", "mark", "commit"]);
    expect(run.log).toEqual(["step hold", "step mark <waiting>", "step commit", "step mark <done>"]);
    return run.results.mark;
  }

  it("a mark that waits on another session's mark answers 200, and the row keeps the first readAt", async () => {
    const user = await t().signUp();
    const id = await unreadNotification(user);
    expect(await markWhileHeld(user, id, "read")).toMatchObject({ blocked: true, ok: true, value: { success: true } });
    expect((await stored(id)).readAt).toEqual(new Date("2020-01-02T03:04:05Z"));
  });

  it("a mark that waits on another session's delete answers 404 and leaves the row unread", async () => {
    const user = await t().signUp();
    const id = await unreadNotification(user);
    expect(await markWhileHeld(user, id, "delete")).toMatchObject({ blocked: true, ok: false, error: { kind: "NOT_FOUND" } });
    expect(await stored(id)).toMatchObject({ readAt: null, deletedAt: expect.any(Date) });
  });

  it("marking a read notification again answers 200 without writing the row", async () => {
    const user = await t().signUp();
    const id = await unreadNotification(user);
    const api = t().caller(user).notifications;
    await api.markRead({ id });
    const first = await stored(id);
    expect(first.readAt).not.toBeNull();

    await expect(api.markRead({ id })).resolves.toEqual({ success: true });
    expect(await stored(id)).toEqual(first);
  });
});
