// A sign-out while the database cannot delete the session (found by the chaos soak, npm run soak: a revoked
// session was accepted after its sign-out answered 200 during a database outage). better-auth's sign-out logs
// a failed delete and answers success all the same; the promise is that a success means the write is
// committed (docs/guarantees.md). The sessions table is locked past the deadline by a second session.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ORIGIN, type TestUser, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("sign-out while the sessions table cannot be written (PostgreSQL)", () => {
  const t = useTestApp({ dbQueryTimeoutSeconds: 1 });
  let locker: postgres.Sql;

  beforeAll(async () => {
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    locker = postgres(process.env.TEST_DATABASE_URL!.replace(/\/[^/]*$/, `/${row!.name}`), { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await locker?.end();
  });

  const read = (user: TestUser) => t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: user.headers });
  const signOut = (user: TestUser) =>
    t().app.inject({ method: "POST", url: "/api/auth/sign-out", headers: { ...user.headers, origin: TEST_ORIGIN }, payload: {} });

  it("answers 503 and leaves the session working when the delete cannot run; the retry signs out", async () => {
    const user = await t().signUp();
    expect((await read(user)).statusCode).toBe(200);

    const answer = await locker.begin(async (tx) => {
      await tx`lock table sessions in access exclusive mode`;
      // Held past the 1 s deadline: every statement on sessions waits, then is cancelled.
      return signOut(user);
    });
    // An error, so nothing was written: the session still works.
    expect(answer.statusCode, answer.body).toBe(503);
    expect((await read(user)).statusCode).toBe(200);

    const retry = await signOut(user);
    expect(retry.statusCode, retry.body).toBe(200);
    expect((await read(user)).statusCode).toBe(401);
  });
});
