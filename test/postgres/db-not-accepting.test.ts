// The PostgreSQL server answers, but the service's database cannot be connected to: it does not accept
// connections (ALLOW_CONNECTIONS false, as during maintenance: SQLSTATE 55000 at connection start-up) or
// is not there under its name (renamed or dropped: 3D000). For the service that is "database unreachable":
// 503 SERVICE_UNAVAILABLE on every API call, as /health/ready already says.
//
// Each case is an app of its own whose pool has never connected, so the first error it meets is the
// start-up one; a session token signed with the same secret makes every call reach the database.
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db, type DbHandle } from "../../db/client.js";
import { buildApp } from "../../server/app.js";
import { createAuth } from "../../server/auth/better-auth.js";
import { createPushService } from "../../server/push/sender.js";
import { TEST_ORIGIN, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString("base64url");

async function appOn(db: Db): Promise<FastifyInstance> {
  const auth = createAuth({ db, secret, baseUrl: TEST_ORIGIN, trustedOrigins: [TEST_ORIGIN], platformAdminEmails: [] });
  const app = await buildApp({
    config: { corsOrigins: [], logLevel: "silent" },
    db,
    auth,
    push: createPushService({ vapid: null }),
    logger: false,
  });
  await app.ready();
  return app;
}

describe("a database that cannot be connected to (PostgreSQL)", () => {
  const t = useTestApp();
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const closedName = `rn_test_closed_${randomBytes(5).toString("hex")}`;
  const opened: { app: FastifyInstance; handle?: DbHandle }[] = [];
  let headers: { authorization: string };

  beforeAll(async () => {
    // A signed-in user, through an app on the working database with the shared secret.
    const working = await appOn(t().db.db);
    opened.push({ app: working });
    const res = await working.inject({
      method: "POST",
      url: "/api/auth/sign-up/email",
      headers: { origin: TEST_ORIGIN },
      payload: {
        name: "Unreachable",
        email: `unreachable-${randomBytes(4).toString("hex")}@test.local`,
        password: "correct-horse-battery",
      },
    });
    expect(res.statusCode).toBe(200);
    headers = { authorization: `Bearer ${(res.json() as { token: string }).token}` };
    await admin.unsafe(`create database ${closedName}`);
    await admin.unsafe(`alter database ${closedName} allow_connections false`);
  });
  afterAll(async () => {
    for (const { app, handle } of opened) {
      await app.close();
      await handle?.close();
    }
    await admin.unsafe(`drop database if exists ${closedName} with (force)`);
    await admin.end();
  });

  /** An app whose database URL names `database` on the test server. */
  async function appOnDatabase(database: string) {
    const url = new URL(serverUrl);
    url.pathname = `/${database}`;
    const handle = await createDb({ databaseUrl: url.toString(), maxConnections: 2 });
    const app = await appOn(handle.db);
    opened.push({ app, handle });
    return app;
  }

  /** The readiness probe and every API door, as `status code`. */
  async function probe(app: FastifyInstance) {
    const calls = [
      { method: "GET", url: "/health/ready" },
      { method: "GET", url: "/api/notifications/unread-count" },
      { method: "PATCH", url: "/api/notifications/read-all" },
      { method: "GET", url: "/trpc/notifications.unreadCount" },
    ] as const;
    const answers: string[] = [];
    for (const { method, url } of calls) {
      const res = await app.inject({ method, url, headers });
      const body = res.json() as { error?: { code?: string; json?: { data?: { appCode?: string } } } };
      answers.push(`${method} ${url}: ${res.statusCode} ${body.error?.code ?? body.error?.json?.data?.appCode ?? "ok"}`);
    }
    return answers;
  }
  const unavailable = (answers: string[]) => answers.map((a) => `${a.split(": ")[0]}: 503 SERVICE_UNAVAILABLE`);

  it("answers 503 SERVICE_UNAVAILABLE everywhere when the database does not accept connections (55000)", async () => {
    const answers = await probe(await appOnDatabase(closedName));
    expect(answers).toEqual(unavailable(answers));
  });

  it("answers 503 SERVICE_UNAVAILABLE everywhere when the database is not there under its name (3D000)", async () => {
    const answers = await probe(await appOnDatabase(`rn_test_missing_${randomBytes(5).toString("hex")}`));
    expect(answers).toEqual(unavailable(answers));
  });
});
