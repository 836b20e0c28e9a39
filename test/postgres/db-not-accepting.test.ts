// The server answers, but the service's database cannot be connected to: it no longer accepts connections
// (ALTER DATABASE … ALLOW_CONNECTIONS false, as for maintenance: SQLSTATE 55000) or is gone under its name
// (renamed away: 3D000). For the service that is "database unreachable": 503 SERVICE_UNAVAILABLE on every
// API call, as /health/ready already says, and back to 200 once the database is back.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestApp, type TestUser } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = process.env.TEST_DATABASE_URL;

describe("a database that refuses connections (PostgreSQL)", () => {
  const t = useTestApp();
  let admin: postgres.Sql;
  let name: string;
  let user: TestUser;

  beforeAll(async () => {
    admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    name = row!.name;
    user = await t().signUp();
  });
  afterAll(async () => {
    await admin?.end();
  });

  /** Every API door and the readiness probe, as status and error code. */
  async function probe() {
    const calls = [
      { method: "GET", url: "/health/ready" },
      { method: "GET", url: "/api/notifications/unread-count" },
      { method: "PATCH", url: "/api/notifications/read-all" },
      { method: "GET", url: "/trpc/notifications.unreadCount" },
    ] as const;
    return Promise.all(
      calls.map(async ({ method, url }) => {
        const res = await t().app.inject({ method, url, headers: user.headers });
        const body = res.json() as { error?: { code?: string; json?: { data?: { appCode?: string } } } };
        return `${method} ${url}: ${res.statusCode} ${body.error?.code ?? body.error?.json?.data?.appCode ?? "ok"}`;
      }),
    );
  }
  const expectAll = async (status: number, code: string) => {
    const answers = await probe();
    expect(answers).toEqual(answers.map((a) => `${a.split(": ")[0]}: ${status} ${code}`));
  };

  /** Runs `body` while the database refuses connections (and, with `rename`, is renamed away), then restores it. */
  async function whileRefusing(rename: boolean, body: () => Promise<void>) {
    await admin.unsafe(`alter database ${name} allow_connections false`);
    try {
      // The pool's idle connections go; new ones are refused at start-up.
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
      for (let i = 0; i < 100; i++) {
        const [{ n }] = (await admin`select count(*)::int as n from pg_stat_activity where datname = ${name}`) as unknown as [{ n: number }];
        if (n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (rename) await admin.unsafe(`alter database ${name} rename to ${name}_away`);
      try {
        await body();
      } finally {
        if (rename) await admin.unsafe(`alter database ${name}_away rename to ${name}`);
      }
    } finally {
      await admin.unsafe(`alter database ${name} allow_connections true`);
    }
  }

  it("answers 503 SERVICE_UNAVAILABLE everywhere while the database does not accept connections (55000)", async () => {
    await expectAll(200, "ok");
    await whileRefusing(false, () => expectAll(503, "SERVICE_UNAVAILABLE"));
    await expectAll(200, "ok");
  });

  it("answers 503 SERVICE_UNAVAILABLE everywhere while the database is not there under its name (3D000)", async () => {
    await expectAll(200, "ok");
    await whileRefusing(true, () => expectAll(503, "SERVICE_UNAVAILABLE"));
    await expectAll(200, "ok");
  });
});
