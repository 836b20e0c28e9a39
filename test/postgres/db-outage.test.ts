// The database goes away and comes back (PostgreSQL only: vitest runs this file in the postgres project).
// docs/api.md#errors: while the database is unreachable every API call answers 503 SERVICE_UNAVAILABLE (never 500),
// /health/ready answers 503, and once it is back the service recovers by itself, with no restart.
import { randomBytes } from "node:crypto";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type DbHandle } from "../../db/client.js";
import { buildApp } from "../../server/app.js";
import { createAuth } from "../../server/auth/better-auth.js";
import { createPushService } from "../../server/push/sender.js";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { TEST_ORIGIN, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { outageUnderTraffic, slowest } from "../helpers/outage.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = process.env.TEST_DATABASE_URL;

type Answer = { label: string; status: number; body: string };
type Request = { label: string; method: "GET" | "POST" | "PATCH"; url: string; payload?: object; headers?: Record<string, string> };

/** An answer whose status is neither a success nor the 503 of docs/api.md#errors, or a 503 without its envelope. */
function contractBreach(answer: Answer): string | null {
  if (answer.status >= 200 && answer.status < 300) return null;
  if (answer.status === 503) {
    const body = JSON.parse(answer.body) as {
      error?: { code?: string; message?: string; json?: { data?: { appCode?: string } } };
    };
    // REST carries the envelope; tRPC its error shape with the same code.
    const code = body.error?.code ?? body.error?.json?.data?.appCode;
    // A driver's or server's own words (addresses, SQL, error codes) never reach the caller.
    const leaks = /ECONN|127\.0\.0\.1|select |postgres|terminat|5432/i.test(answer.body);
    if (code === "SERVICE_UNAVAILABLE" && !leaks) return null;
  }
  return `${answer.label}: ${answer.status} ${answer.body}`;
}

async function inject(app: FastifyInstance, r: Request): Promise<Answer> {
  const res = await app.inject({ method: r.method, url: r.url, headers: r.headers, ...(r.payload ? { payload: r.payload } : {}) });
  return { label: r.label, status: res.statusCode, body: res.body };
}

/**
 * The app's statement bound (DB_QUERY_TIMEOUT_SECONDS), and the longest any request may then take: a
 * request is at most a few units of database work (session, then its own statements), each bounded.
 */
const QUERY_TIMEOUT_SECONDS = 3;
const REQUEST_BOUND_MS = 4 * QUERY_TIMEOUT_SECONDS * 1000;

describe("database outage (PostgreSQL)", () => {
  const t = useTestApp({ dbQueryTimeoutSeconds: QUERY_TIMEOUT_SECONDS });
  let admin: postgres.Sql;
  let databaseName: string;

  beforeAll(async () => {
    admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    databaseName = row!.name;
  });
  afterAll(async () => {
    await admin?.end();
  });

  /** A mix of reads and writes, REST and tRPC, by a user and an admin. */
  async function trafficMix() {
    const user = await t().signUp();
    const adminUser = await t().signUp({ admin: true });
    const mix = (i: number): Request => {
      switch (i % 6) {
        case 0:
          return { label: "unread-count", method: "GET", url: "/api/notifications/unread-count", headers: user.headers };
        case 1:
          return { label: "list cohorts", method: "GET", url: "/api/admin/restriction/cohorts", headers: adminUser.headers };
        case 2:
          return {
            label: "create cohort",
            method: "POST",
            url: "/api/admin/restriction/cohorts",
            headers: adminUser.headers,
            payload: { cohortNumber: uniqueCohortNumber(), proIds: [`outage-${i}`] },
          };
        case 3:
          return { label: "tRPC unreadCount", method: "GET", url: "/trpc/notifications.unreadCount", headers: user.headers };
        case 4:
          return { label: "read-all", method: "PATCH", url: "/api/notifications/read-all", headers: user.headers };
        default:
          return { label: "list", method: "GET", url: "/api/notifications?limit=5", headers: user.headers };
      }
    };
    return mix;
  }

  it("answers 503 while backends are terminated under load, never 500 or late, and recovers by itself", async () => {
    const mix = await trafficMix();
    // Warm the pool: several connections open and idle, as in a busy service.
    await Promise.all(Array.from({ length: 12 }, (_, i) => inject(t().app, mix(i))));

    // Three rounds: every backend terminated every 50 ms for 1.5 s while requests are in flight, so some
    // terminations land on connections the pool is just opening (as while a server restarts).
    const outage = await outageUnderTraffic({
      admin,
      database: databaseName,
      request: (i) => ({ label: mix(i).label, send: () => inject(t().app, mix(i)) }),
      rounds: 3,
      settleWithinMs: 2 * REQUEST_BOUND_MS,
    });
    expect(outage.unanswered).toEqual([]);
    expect(outage.terminated).toBeGreaterThan(0);
    expect(outage.answers.map(contractBreach).filter(Boolean)).toEqual([]);
    // Every round cut some requests off, and answered others.
    expect(
      outage.unavailablePerRound.every((n) => n > 0),
      `503s per round: ${outage.unavailablePerRound}`,
    ).toBe(true);
    expect(outage.answers.filter((a) => a.status < 300).length).toBeGreaterThan(0);
    // No request waited longer than its bounds allow (issue R: some used to wait forever).
    expect(Math.max(...outage.answers.map((a) => a.ms)), slowest(outage.answers).join("\n")).toBeLessThan(REQUEST_BOUND_MS);

    // No restart, no manual step: the pool reconnects and every later request succeeds.
    await waitFor(
      () => inject(t().app, { label: "ready", method: "GET", url: "/health/ready" }),
      (a) => a.status === 200,
      {
        withinMs: REQUEST_BOUND_MS,
        what: "ready again",
      },
    );
    const after = await Promise.all(Array.from({ length: 36 }, (_, i) => inject(t().app, mix(i))));
    expect(after.filter((a) => a.status >= 300).map((a) => `${a.label}: ${a.status} ${a.body}`)).toEqual([]);
  }, 120_000);

  describe("the database server unreachable", () => {
    // A TCP proxy in front of PostgreSQL: stopping it is a server that went away (connections cut, then
    // refused); starting it again on the same port is the server coming back.
    let proxy: TcpProxy;
    let handle: DbHandle;
    let app: FastifyInstance;

    beforeAll(async () => {
      const upstream = new URL(serverUrl);
      proxy = await startTcpProxy(upstream.hostname, Number(upstream.port || 5432));
      const url = new URL(serverUrl);
      url.host = `127.0.0.1:${proxy.port}`;
      url.pathname = `/${databaseName}`;
      // The database is the test's own (already migrated); this app reaches it only through the proxy.
      handle = await createDb({ databaseUrl: url.toString(), maxConnections: 5 });
      const auth = createAuth({
        db: handle.db,
        secret: randomBytes(32).toString("base64url"),
        baseUrl: TEST_ORIGIN,
        trustedOrigins: [TEST_ORIGIN],
        platformAdminEmails: [],
      });
      app = await buildApp({
        config: { corsOrigins: [], logLevel: "silent" },
        db: handle.db,
        auth,
        push: createPushService({ vapid: null }),
        logger: false,
      });
      await app.ready();
    });
    afterAll(async () => {
      await app?.close();
      await proxy?.start();
      await handle?.close();
      await proxy?.close();
    });

    it("answers 503 on /health/ready and on every API call while down, and 200 again once it is back", async () => {
      const signUp = await app.inject({
        method: "POST",
        url: "/api/auth/sign-up/email",
        headers: { origin: TEST_ORIGIN },
        payload: { name: "Outage", email: `outage-${randomBytes(4).toString("hex")}@test.local`, password: "correct-horse-battery" },
      });
      expect(signUp.statusCode).toBe(200);
      const headers = { authorization: `Bearer ${(signUp.json() as { token: string }).token}` };
      const { p256dh, auth } = makeSubscriber();
      const calls: Request[] = [
        { label: "ready", method: "GET", url: "/health/ready" },
        { label: "unread-count", method: "GET", url: "/api/notifications/unread-count", headers },
        { label: "list", method: "GET", url: "/api/notifications", headers },
        {
          label: "subscribe",
          method: "POST",
          url: "/api/notifications/subscriptions",
          headers,
          payload: { endpoint: "https://push.example.test/outage", p256dh, auth },
        },
        { label: "read-all", method: "PATCH", url: "/api/notifications/read-all", headers },
        { label: "tRPC query", method: "GET", url: "/trpc/notifications.unreadCount", headers },
        { label: "tRPC mutation", method: "POST", url: "/trpc/notifications.markAllRead", headers, payload: { json: {} } },
      ];
      const before = await Promise.all(calls.filter((c) => c.label !== "subscribe").map((c) => inject(app, c)));
      expect(before.filter((a) => a.status !== 200).map((a) => `${a.label}: ${a.status} ${a.body}`)).toEqual([]);

      // The pool's open connections are cut, and every new one is refused.
      await proxy.stop();
      const down = await Promise.all(calls.map((c) => inject(app, c)));
      expect(down.map((a) => `${a.label}: ${a.status}`)).toEqual(calls.map((c) => `${c.label}: 503`));
      expect(down.map(contractBreach).filter(Boolean)).toEqual([]);

      await proxy.start();
      await waitFor(
        () => inject(app, calls[0]!),
        (a) => a.status === 200,
        { withinMs: 10_000, what: "ready once the server is back" },
      );
      // Some connections may still wait out the driver's reconnect back-off (seconds): slow, but they succeed.
      const back = await Promise.all(calls.filter((c) => c.label !== "subscribe").map((c) => inject(app, c)));
      expect(back.filter((a) => a.status !== 200).map((a) => `${a.label}: ${a.status} ${a.body}`)).toEqual([]);
    });
  });
});

type TcpProxy = {
  port: number;
  /** Cuts every open connection and refuses new ones. */
  stop(): Promise<void>;
  /** Accepts connections again, on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
};

async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  const listen = async () => {
    const s = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => resolve());
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    start: async () => {
      if (!server) await listen();
    },
    close: stop,
  };
}
