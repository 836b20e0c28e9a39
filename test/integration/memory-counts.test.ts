// Unread counts from memory (issue W, server/memory/counts.ts): a user's count is answered from this
// instance's memory once read, their own notification writes are read back at once, a producer's batch is
// counted at once on the instance that took it, and a change made outside the service (raw SQL) is heard.
// On PGlite and PostgreSQL.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { answeredFrom, type MemorySource } from "../helpers/memory.js";
import { eventFor, producer } from "../helpers/producers.js";
import { waitFor } from "../helpers/wait.js";

describe("unread counts in memory", () => {
  const t = useTestApp();
  const p = producer(t);

  const count = (user: TestUser) =>
    answeredFrom("unread_count", async () => {
      const res = await t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: user.headers });
      expect(res.statusCode).toBe(200);
      return (res.json() as { data: { count: number } }).data.count;
    });
  const settles = (user: TestUser, value: number, source: MemorySource | "any" = "memory") =>
    waitFor(
      () => count(user),
      (answer) => answer.value === value && (source === "any" || answer.source === source),
      { withinMs: 5000, what: `an unread count of ${value} from ${source}` },
    );
  /** `n` notifications for `user` through the producer API; their ids. */
  async function notify(user: TestUser, n: number): Promise<string[]> {
    const results = await p.results(
      await p.key(),
      Array.from({ length: n }, () => eventFor(user.id)),
    );
    return results.map((result) => result.notificationId!);
  }

  it("answers a count from memory, and a producer's batch is counted at once on the instance that took it", async () => {
    const user = await t().signUp();
    await settles(user, 0);
    for (const n of [1, 2, 3]) {
      await notify(user, 1);
      expect((await count(user)).value).toBe(n);
    }
    await settles(user, 3);
  });

  it("reads back the user's own mark-read, mark-all-read and delete at once", async () => {
    const user = await t().signUp();
    const ids = await notify(user, 4);
    await settles(user, 4);
    const call = (method: "PATCH" | "DELETE", url: string) =>
      t().app.inject({ method, url: `/api/notifications${url}`, headers: user.headers });

    expect((await call("PATCH", `/${ids[0]}/read`)).statusCode).toBe(200);
    expect((await count(user)).value).toBe(3);
    expect((await call("DELETE", `/${ids[1]}`)).statusCode).toBe(200);
    expect((await count(user)).value).toBe(2);
    await settles(user, 2);
    expect((await call("PATCH", "/read-all")).statusCode).toBe(200);
    expect((await count(user)).value).toBe(0);
    await settles(user, 0);
  });

  it("hears notifications inserted, read and deleted with raw SQL", async () => {
    const user = await t().signUp();
    await settles(user, 0);
    const db = t().db.db;
    await db.execute(
      sql`insert into notifications (user_id, event_type, category, title) values (${user.id}, 'message.received', 'messages', 'by hand')`,
    );
    await settles(user, 1);
    await db.execute(sql`update notifications set read_at = now() where user_id = ${user.id}`);
    await settles(user, 0);
    await db.execute(sql`update notifications set read_at = null where user_id = ${user.id}`);
    await settles(user, 1);
    await db.execute(sql`delete from notifications where user_id = ${user.id}`);
    await settles(user, 0);
  });

  it("keeps one user's count apart from another's", async () => {
    const [one, two] = [await t().signUp(), await t().signUp()];
    await settles(one, 0);
    await settles(two, 0);
    await notify(two, 2);
    expect((await count(two)).value).toBe(2);
    expect((await settles(one, 0)).value).toBe(0);
  });
});
