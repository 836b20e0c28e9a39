// docs/guarantees.md, the per-address sign-in budget: a success spends nothing, so a client that signs in
// again the moment it has its answer finds its point already given back. On PostgreSQL the refund is a
// statement of its own; given back after the answer (Fastify's onResponse), it raced the client's next
// sign-in, and CI once saw the fourth of five quick successes refused with a 429.
//
// This holds the refund statement until the sign-in's answer has arrived. Given back after the answer, the
// answer comes first: the order below fails every time. Given back before it, the answer cannot come until
// the refund is done; the held statement is then let go by a timer, which only unblocks it and decides
// nothing.
import { randomBytes } from "node:crypto";
import type { Sql } from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TEST_ORIGIN, TEST_PASSWORD, type TestApp } from "../helpers/app.js";
import { openTestDb, type TestDb, testDbKind } from "../helpers/db.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

/** rate-limiter-flexible's upsert with points -1: a point given back (FailureBudget.refund). */
const isRefund = (text: string, values: readonly unknown[]) => text.includes("INSERT INTO") && values[1] === -1;

describe("the per-address sign-in budget gives a success's point back before the answer (PostgreSQL)", () => {
  let db: TestDb;
  let t: TestApp;
  const events: string[] = [];
  let answered: Promise<unknown> = Promise.resolve();

  beforeAll(async () => {
    db = await openTestDb();
    if (db.driver !== "postgres") throw new Error("PostgreSQL only");
    const client = db.client;
    // The limits' own client (the service's pool), with the refund held as described above.
    const held = {
      unsafe: async (text: string, values: never[], options: { prepare: boolean }) => {
        if (!isRefund(text, values)) return client.unsafe(text, values, options);
        await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, 100))]);
        const rows = await client.unsafe(text, values, options);
        events.push("point given back");
        return rows;
      },
    } as unknown as Sql;
    t = await createTestApp({
      db,
      trustProxy: 1,
      limits: { signInFailuresPerAddress: { max: 3, timeWindowMs: 60_000 } },
      rateLimitStore: { kind: "postgres", client: held },
    });
  });
  afterAll(async () => {
    await t?.app.close();
    await db?.close();
  });

  it("a sign-in's answer comes after its point is back, so five quick successes after two failures all pass", async () => {
    const address = `2001:db8:${randomBytes(2).toString("hex")}::${randomBytes(2).toString("hex")}`;
    const signIn = (email: string, password: string) => {
      const answer = t.app
        .inject({
          method: "POST",
          url: "/api/auth/sign-in/email",
          headers: { origin: TEST_ORIGIN, "content-type": "application/json", "x-forwarded-for": address },
          payload: { email, password },
        })
        .then((res) => {
          events.push("answer");
          return res;
        });
      answered = answer;
      return answer;
    };
    const user = await t.signUp();
    for (let i = 0; i < 2; i++) expect((await signIn(`nobody-${i}@test.local`, "wrong-password-123")).statusCode).toBe(401);
    events.length = 0;
    for (let i = 0; i < 5; i++) expect((await signIn(user.email, TEST_PASSWORD)).statusCode, `success ${i + 1}`).toBe(200);
    expect(events).toEqual(Array.from({ length: 5 }, () => ["point given back", "answer"]).flat());
  });
});
