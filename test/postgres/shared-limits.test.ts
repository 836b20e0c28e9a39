// docs/api.md#rate-limits: two instances of the service on one PostgreSQL database count every limit
// together (the rate_limits table), so a budget is spent whichever instance the requests reach. Counting in
// each process's memory, each app would have seen only half the attempts and let the next one through.
// In-process apps with lowered budgets, so every limit is covered quickly; two-instances.test.ts shows the
// sign-in limit across two real server processes.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { createTestApp, TEST_ORIGIN, type TestApp } from "../helpers/app.js";
import { openTestDb, type TestDb, testDbKind } from "../helpers/db.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.com" };
const json = { "content-type": "application/json", origin: TEST_ORIGIN };
// Sign-in keeps its default budget (10 a minute); the others are lowered to keep the test short.
const limits = {
  signUp: { max: 4, timeWindowMs: 60_000 },
  testPush: { max: 4, timeWindowMs: 60_000 },
  signInFailuresPerAddress: { max: 12, timeWindowMs: 60_000 },
};

describe("limits shared by two instances on one database (PostgreSQL)", () => {
  let db: TestDb;
  let apps: [TestApp, TestApp];
  beforeAll(async () => {
    db = await openTestDb();
    apps = [await createTestApp({ db, limits, push: { vapid } }), await createTestApp({ db, limits, push: { vapid } })];
  });
  afterAll(async () => {
    for (const t of apps ?? []) await t.app.close();
    await db?.close();
  });
  /** The instance the n-th request (from 0) reaches: they alternate. */
  const instance = (n: number) => apps[n % 2]!;

  const expectRefused = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
    expect(res.statusCode, res.body).toBe(429);
    expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
  };

  it("refuses the 11th sign-in attempt for one account and address within the window, on either instance", async () => {
    const user = await apps[0].signUp();
    const signIn = (n: number) =>
      instance(n).app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: json,
        payload: { email: user.email, password: "wrong-password" },
        remoteAddress: "198.51.100.11",
      });
    for (let n = 0; n < 10; n++) expect((await signIn(n)).statusCode).toBe(401);
    const eleventh = await signIn(10);
    expectRefused(eleventh);
    expect(eleventh.json()).toEqual({
      success: false,
      error: { code: "TOO_MANY_REQUESTS", message: "Too many requests; try again later" },
    });
    expectRefused(await signIn(11));
  });

  it("refuses the sign-up past the budget of one client address, on either instance", async () => {
    const signUp = (n: number, remoteAddress = "198.51.100.12") =>
      instance(n).app.inject({
        method: "POST",
        url: "/api/auth/sign-up/email",
        headers: json,
        payload: { name: "Many", email: `shared-${randomBytes(5).toString("hex")}@test.local`, password: "correct-horse-battery" },
        remoteAddress,
      });
    for (let n = 0; n < 4; n++) expect((await signUp(n)).statusCode).toBe(200);
    expectRefused(await signUp(4));
    expectRefused(await signUp(5));
    // Another address has a budget of its own.
    expect((await signUp(6, "198.51.100.13")).statusCode).toBe(200);
  });

  it("refuses the admin test push past the caller's budget, on either instance and through either door", async () => {
    // Signed up on one instance, its session works on both (one database, one secret).
    const admin = await apps[1].signUp({ admin: true });
    const body = { type: "system.test", title: "Ping", targetUserId: admin.id };
    const push = (n: number) =>
      n % 4 < 2
        ? instance(n).app.inject({
            method: "POST",
            url: "/api/notifications/test/push",
            headers: { ...admin.headers, ...json },
            payload: body,
          })
        : instance(n).app.inject({
            method: "POST",
            url: "/trpc/notifications.testPush",
            headers: { ...admin.headers, ...json },
            payload: { json: body },
          });
    for (let n = 0; n < 4; n++) expect((await push(n)).statusCode).toBe(200);
    expectRefused(await push(4));
    expectRefused(await push(5));
  });

  it("keeps the counts in this database, by digest: no e-mail or client address in the table", async () => {
    const rows = (await db.db.execute<{ key: string }>(sql`select key from rate_limits`)) as unknown as { key: string }[];
    expect(rows.map((r) => r.key.split(":")[0]).sort()).toEqual([
      "sign-in",
      "sign-in-failures",
      "sign-up",
      "sign-up",
      "sign-up",
      "test-push",
    ]);
    for (const { key } of rows) expect(key).toMatch(/^[a-z-]+:[\w-]{43}$/);
  });

  it("refuses one address's failed sign-ins past its budget, whatever the accounts, on either instance", async () => {
    const signIn = (n: number) =>
      instance(n).app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: json,
        payload: { email: `spray-${n}-${randomBytes(5).toString("hex")}@test.local`, password: "wrong-password" },
        remoteAddress: "198.51.100.14",
      });
    for (let n = 0; n < 12; n++) expect((await signIn(n)).statusCode).toBe(401);
    expectRefused(await signIn(12));
    expectRefused(await signIn(13));
  });
});
