// DB_QUERY_TIMEOUT_SECONDS (docs/operators.md#configuration): a statement that gets no answer within the bound
// fails as 503 SERVICE_UNAVAILABLE, its connection is replaced, and db_query_timeouts_total counts it. A
// table locked by another session stands for a database that does not answer.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isQueryTimeout } from "../../db/errors.js";
import { registry } from "../../server/observability/metrics.js";
import { useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { parseMetrics, sampleValue } from "../helpers/metrics.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = process.env.TEST_DATABASE_URL;

const timeouts = async (kind: "statement" | "transaction") =>
  sampleValue(parseMetrics(await registry.metrics()), "db_query_timeouts_total", { kind }) ?? 0;

describe("a statement without an answer in time (PostgreSQL)", () => {
  const t = useTestApp({ dbQueryTimeoutSeconds: 1 });
  let locker: postgres.ReservedSql;
  let lockerPool: postgres.Sql;

  beforeAll(async () => {
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    const url = new URL(serverUrl);
    url.pathname = `/${row!.name}`;
    lockerPool = postgres(url.toString(), { max: 1, onnotice: () => {} });
    locker = await lockerPool.reserve();
  });
  afterAll(async () => {
    locker?.release();
    await lockerPool?.end();
  });

  it("answers 503 SERVICE_UNAVAILABLE, counts it, and serves again on a new connection", async () => {
    const user = await t().signUp();
    // The inbox page always reads its rows from the table. (The unread count, once read, may be answered from
    // memory while the memory feed vouches for it, which on a quiet machine it usually does: a locked table
    // would then go unnoticed.)
    const inbox = () => t().app.inject({ method: "GET", url: "/api/notifications", headers: user.headers });
    expect((await inbox()).statusCode).toBe(200);
    const before = await timeouts("statement");

    // Another session holds the inbox's table: the inbox's statement waits and never gets an answer.
    await locker`begin`;
    await locker`lock table notifications in access exclusive mode`;
    const blocked = await inbox();
    expect(blocked.statusCode).toBe(503);
    expect(blocked.json()).toEqual({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: expect.any(String) } });
    expect(await timeouts("statement")).toBe(before + 1);

    await locker`rollback`;
    expect((await inbox()).statusCode).toBe(200);
  });

  it("bounds a transaction the same way", async () => {
    const before = await timeouts("transaction");
    await locker`begin`;
    await locker`lock table notification_counts in access exclusive mode`;
    const stuck = t().db.db.transaction(async (tx) => {
      await tx.execute(sql`select count(*) from notification_counts`);
    });
    expect(isQueryTimeout(await stuck.catch((err: unknown) => err))).toBe(true);
    expect(await timeouts("transaction")).toBe(before + 1);
    await locker`rollback`;
    await t().db.db.transaction((tx) => tx.execute(sql`select count(*) from notification_counts`));
  });
});
