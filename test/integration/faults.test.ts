// Faults outside the service: a push service that throttles, fails, cuts the connection or talks nonsense
// (push-delivery.test.ts already covers 201/404/410/500, a hang and a refused connection), and a SIGTERM
// while requests are in flight against the real server process (server/main.ts).
import { randomBytes } from "node:crypto";
import { Agent, request as httpRequest } from "node:http";
import { connect } from "node:net";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema/index.js";
import { type Behaviour, type LocalPushService, makeSubscriber, startPushService } from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { waitFor } from "../helpers/wait.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const TIMEOUT_MS = 500;

// One database and in-process app for the file (PGlite is slow to start); the SIGTERM test only takes its
// database from it, on PostgreSQL.
// The fan-out test gives one user 24 subscriptions, past the default cap of 20.
const t = useTestApp({
  push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: TIMEOUT_MS, concurrency: 4 },
  limits: { pushSubscriptionsPerUser: 24 },
});

describe("push service faults", () => {
  let push: LocalPushService;
  beforeAll(async () => {
    push = await startPushService();
  });
  afterAll(async () => {
    await push?.close();
  });

  async function subscribe(user: TestUser, behaviour: Behaviour) {
    const { p256dh, auth } = makeSubscriber();
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/subscriptions",
      headers: user.headers,
      payload: { endpoint: push.endpoint(behaviour), p256dh, auth },
    });
    expect(res.statusCode).toBe(200);
    return { behaviour, id: (res.json().data as { subscription: { id: string } }).subscription.id };
  }

  const testPush = (admin: TestUser, target: TestUser) =>
    t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: admin.headers,
      payload: { type: "system.fault", title: "Fault drill", targetUserId: target.id },
    });

  type Result = { subscriptionId: string; statusCode: number | null; ok: boolean; error?: string };

  it("429 (with or without Retry-After), 503, a reset connection, a non-HTTP answer and a redirect are failures of that subscription only", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const subs = [];
    for (const behaviour of [201, 429, "429-retry", 503, "reset", "garbage", "redirect"] as const) {
      subs.push(await subscribe(target, behaviour));
    }

    const res = await testPush(admin, target);
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { sent: number; failed: number; deactivated: number; results: Result[] };
    expect(data).toMatchObject({ sent: 1, failed: subs.length - 1, deactivated: 0 });
    const byBehaviour = Object.fromEntries(subs.map((s) => [s.behaviour, data.results.find((r) => r.subscriptionId === s.id)]));
    expect(byBehaviour).toEqual({
      "201": { subscriptionId: subs[0]!.id, statusCode: 201, ok: true },
      "429": { subscriptionId: subs[1]!.id, statusCode: 429, ok: false, error: "Push service answered HTTP 429" },
      "429-retry": { subscriptionId: subs[2]!.id, statusCode: 429, ok: false, error: "Push service answered HTTP 429" },
      "503": { subscriptionId: subs[3]!.id, statusCode: 503, ok: false, error: "Push service answered HTTP 503" },
      reset: { subscriptionId: subs[4]!.id, statusCode: null, ok: false, error: expect.stringMatching(/^Network error: /) },
      garbage: { subscriptionId: subs[5]!.id, statusCode: null, ok: false, error: expect.stringMatching(/^Network error: /) },
      // The redirect is not followed: its target is not the push service's to choose.
      redirect: { subscriptionId: subs[6]!.id, statusCode: 301, ok: false, error: "Push service answered HTTP 301" },
    });
    // The driver's own words stay out of the answer: no stack, no addresses.
    expect(res.body).not.toMatch(/\n\s+at |127\.0\.0\.1/);

    // Throttled or failing is not gone: every subscription is kept for the next attempt.
    const rows = await t()
      .db.db.select({ id: pushSubscriptions.id, isActive: pushSubscriptions.isActive })
      .from(pushSubscriptions)
      .where(
        inArray(
          pushSubscriptions.id,
          subs.map((s) => s.id),
        ),
      );
    expect(rows.filter((r) => !r.isActive)).toEqual([]);
    expect(rows).toHaveLength(subs.length);
  });

  it("a fan-out over many misbehaving subscriptions records each one's own outcome", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const cycle = [201, 429, 410, 500, "reset", "hang"] as const;
    const subs = [];
    for (let i = 0; i < 24; i++) subs.push(await subscribe(target, cycle[i % cycle.length]!));
    const hangsBefore = push.arrived("hang");

    const res = await testPush(admin, target);
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { sent: number; failed: number; deactivated: number; results: Result[] };
    expect(data).toMatchObject({ sent: 4, failed: 20, deactivated: 4 });
    expect(data.results).toHaveLength(subs.length);
    expect(push.arrived("hang") - hangsBefore).toBe(4);

    const expected: Record<(typeof cycle)[number], Partial<Result>> = {
      201: { statusCode: 201, ok: true },
      429: { statusCode: 429, ok: false, error: "Push service answered HTTP 429" },
      410: { statusCode: 410, ok: false, error: "Subscription gone (HTTP 410)" },
      500: { statusCode: 500, ok: false, error: "Push service answered HTTP 500" },
      reset: { statusCode: null, ok: false },
      hang: { statusCode: null, ok: false, error: `Timed out: no answer within ${TIMEOUT_MS} ms` },
    };
    for (const sub of subs) {
      expect(
        data.results.find((r) => r.subscriptionId === sub.id),
        String(sub.behaviour),
      ).toMatchObject(expected[sub.behaviour as (typeof cycle)[number]]);
    }

    // Only the gone ones (410) were deactivated.
    const inactive = await t()
      .db.db.select({ id: pushSubscriptions.id })
      .from(pushSubscriptions)
      .where(
        and(
          inArray(
            pushSubscriptions.id,
            subs.map((s) => s.id),
          ),
          eq(pushSubscriptions.isActive, false),
        ),
      );
    expect(new Set(inactive.map((r) => r.id))).toEqual(new Set(subs.filter((s) => s.behaviour === 410).map((s) => s.id)));
  });

  it("keeps serving after the faults: ready, and the next push to a healthy endpoint is delivered", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    await subscribe(target, "reset");
    await subscribe(target, "hang");
    expect((await testPush(admin, target)).json().data).toMatchObject({ sent: 0, failed: 2 });

    const healthy = await subscribe(target, 201);
    const res = await testPush(admin, target);
    expect(res.json().data).toMatchObject({ sent: 1, failed: 2, deactivated: 0 });
    expect((res.json().data as { results: Result[] }).results.find((r) => r.subscriptionId === healthy.id)).toMatchObject({ ok: true });
    expect((await t().app.inject({ method: "GET", url: "/health/ready" })).statusCode).toBe(200);
  });
});

describe("SIGTERM while requests are in flight (server/main.ts)", () => {
  let push: LocalPushService;
  const servers: ServerProcess[] = [];
  const agents: Agent[] = [];
  beforeAll(async () => {
    push = await startPushService();
  });
  afterAll(async () => {
    for (const agent of agents) agent.destroy();
    await Promise.all(servers.map((server) => server.kill()));
    await push?.close();
  });

  /** The child's database: the embedded one on PGlite, this file's database on PostgreSQL. */
  async function databaseEnv(): Promise<Record<string, string>> {
    if (t().db.kind === "pglite") return { PGLITE_DIR: "memory://", DATABASE_URL: "" };
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${row!.name}`;
    return { DATABASE_URL: url.toString(), BETTER_AUTH_SECRET: randomBytes(32).toString("base64url") };
  }

  type Answer = { status: number; connection: string | undefined; body: string };

  /** One HTTP request; `agent: false` is a connection of its own, closed after the answer. */
  function request(
    port: number,
    agent: Agent | false,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method,
          path,
          agent,
          headers: { "content-type": "application/json", origin: `http://127.0.0.1:${port}`, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: Buffer.concat(chunks).toString() }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  const connectionRefused = (port: number) =>
    new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });

  const DELAY: Behaviour = "delay-1500";

  /**
   * Starts `node --import tsx server/main.ts` on a free port, waits for /health/ready, and prepares an
   * admin and a target whose one push subscription answers only after 1.5 s.
   */
  async function startServer() {
    const adminEmail = `drain-admin-${randomBytes(4).toString("hex")}@test.local`;
    const server = await startServerProcess({
      ...(await databaseEnv()),
      LOG_LEVEL: "silent",
      PLATFORM_ADMIN_EMAILS: adminEmail,
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: vapid.subject,
      PUSH_ALLOW_HTTP_ENDPOINTS: "true",
      PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
    });
    servers.push(server);
    const port = Number(new URL(server.url).port);

    const signUp = async (email: string) => {
      const res = await request(port, false, "POST", "/api/auth/sign-up/email", {
        name: "Drain",
        email,
        password: "correct-horse-battery",
      });
      expect(res.status).toBe(200);
      const body = JSON.parse(res.body) as { token: string; user: { id: string } };
      return { id: body.user.id, headers: { authorization: `Bearer ${body.token}` } };
    };
    const admin = await signUp(adminEmail);
    const target = await signUp(`drain-${randomBytes(4).toString("hex")}@test.local`);
    const { p256dh, auth } = makeSubscriber();
    const subscribed = await request(
      port,
      false,
      "POST",
      "/api/notifications/subscriptions",
      { endpoint: push.endpoint(DELAY), p256dh, auth },
      target.headers,
    );
    expect(subscribed.status).toBe(200);

    /** `n` admin test pushes over `agent`, each held open by the slow push endpoint; resolves once all are running. */
    async function holdInFlight(agent: Agent, n: number): Promise<Promise<Answer>[]> {
      const before = push.arrived(DELAY);
      const answers = Array.from({ length: n }, () =>
        request(
          port,
          agent,
          "POST",
          "/api/notifications/test/push",
          { type: "system.drain", title: "Drain", targetUserId: target.id },
          admin.headers,
        ),
      );
      // A handler is running once its push has reached the push service.
      const until = Date.now() + 15_000;
      while (push.arrived(DELAY) - before < n) {
        if (Date.now() > until) throw new Error("the pushes never reached the push service");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return answers;
    }

    /** The exit, or null when the process is still running after `ms`. */
    const exitWithin = (ms: number) =>
      Promise.race([
        server.exited.then(({ code }) => ({ code, signal: null })),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), ms)),
      ]);

    return { port, server, holdInFlight, exitWithin };
  }

  const delivered = {
    success: true,
    data: { sent: 1, failed: 0, deactivated: 0, results: [expect.objectContaining({ statusCode: 201, ok: true })] },
  };

  it("finishes every in-flight request with its normal answer, refuses new connections, and exits 0 once clients hang up", async () => {
    const server = await startServer();
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    const inFlight = await server.holdInFlight(agent, 8);

    server.server.signal("SIGTERM");
    // Draining: the listener closes, so a new connection is refused while the old requests finish.
    await waitFor(
      () => connectionRefused(server.port),
      (answer) => answer === "ECONNREFUSED",
      { withinMs: 10_000, what: "the listener closed" },
    );
    expect(server.server.alive()).toBe(true);

    const answers = await Promise.all(inFlight);
    expect(answers.map((a) => ({ status: a.status, body: JSON.parse(a.body) as unknown }))).toEqual(
      answers.map(() => ({ status: 200, body: delivered })),
    );

    // The client is done and lets its connections go: nothing keeps the process.
    agent.destroy();
    const exit = await server.exitWithin(10_000);
    expect(exit, server.server.output()).toEqual({ code: 0, signal: null });
    expect(await connectionRefused(server.port)).toBe("ECONNREFUSED");
  }, 90_000);

  it("exits 0 within 5 s of its last answer even while clients keep their idle connections open", async () => {
    const server = await startServer();
    // Browsers, proxies and load balancers keep idle connections for reuse; the drain must not wait for them.
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    const inFlight = await server.holdInFlight(agent, 4);

    server.server.signal("SIGTERM");
    const answers = await Promise.all(inFlight);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);

    const exit = await server.exitWithin(5_000);
    expect(
      exit,
      `still running 5 s after its last answer; the answers said "Connection: ${answers[0]!.connection}", so the idle connections stay open`,
    ).toEqual({ code: 0, signal: null });
  }, 90_000);
});
