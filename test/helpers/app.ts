// One app per test file on its own database, with signed-in users made on demand.
import { randomBytes, randomInt } from "node:crypto";
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { users } from "../../db/schema/index.js";
import { type AppDeps, buildApp } from "../../server/app.js";
import { type Auth, createAuth } from "../../server/auth/better-auth.js";
import type { SessionUser } from "../../server/auth/session.js";
import type { Config } from "../../server/config.js";
import { createContextInner } from "../../server/context.js";
import { rateLimitStoreFor } from "../../server/http/rate-limit.js";
import { createSearchTotals, type SearchTotals } from "../../server/memory/search-totals.js";
import { createPushService, type PushService, type PushServiceOptions } from "../../server/push/sender.js";
import { buildOpenApiDocument } from "../../server/rest/openapi.js";
import { createCaller } from "../../server/routers/index.js";
import { type ContractChecker, type ContractViolation, checkAnswers, type OpenApiDocument } from "./contract-check.js";
import { openTestDb, type TestDb } from "./db.js";
import { testLookup } from "./dns.js";

export const TEST_ORIGIN = "http://127.0.0.1:3000";
/** Signing up with this address makes a platform admin (PLATFORM_ADMIN_EMAILS). */
export const BOOTSTRAP_ADMIN_EMAIL = "root-admin@test.local";
/** better-auth's secret in test apps: it signs session cookies (sessionCookie in four-eyes.ts). */
export const TEST_AUTH_SECRET = "test-secret-that-is-long-enough-0123456789";

/** The password of every user signUp makes (browser tests type it into the sign-in form). */
export const TEST_PASSWORD = "correct-horse-battery";

export type TestUser = SessionUser & { token: string; headers: { authorization: string } };

export type TestApp = {
  db: TestDb;
  app: FastifyInstance;
  auth: Auth;
  push: PushService;
  /** Signs up a new user through better-auth; `admin: true` grants the platform admin role. */
  signUp(options?: { admin?: boolean; name?: string; email?: string }): Promise<TestUser>;
  /** The search totals the callers remember (server/memory/search-totals.ts). */
  searchTotals: SearchTotals;
  /** A tRPC caller acting as this user (or anonymous). */
  caller(user?: SessionUser | null, userAgent?: string): ReturnType<typeof createCaller>;
  /**
   * REST answers that broke the OpenAPI document (test/helpers/contract-check.ts), taken: useTestApp asserts
   * there are none after each test, and closing the app fails while any are left.
   */
  takeContractViolations(): ContractViolation[];
  /** The checker of this app's answers, with the operations and statuses it has seen. */
  contract(): ContractChecker;
};

export type TestAppOptions = {
  push?: Partial<PushServiceOptions>;
  signUp?: "open" | "closed";
  limits?: AppDeps["limits"];
  logger?: AppDeps["logger"];
  consoleDir?: AppDeps["consoleDir"];
  /** Another app's database: a second instance of the service on it (the caller closes the database once). */
  db?: TestDb;
  /** PostgreSQL: DB_QUERY_TIMEOUT_SECONDS of the app's database (db/client.ts's default otherwise). */
  dbQueryTimeoutSeconds?: number;
  /** TRUSTED_ORIGINS instead of the default (TEST_ORIGIN and any http://127.0.0.1 port), e.g. exact ones. */
  trustedOrigins?: string[];
  /** The durable push queue's timing (it runs when `push.vapid` is set). */
  deliveries?: AppDeps["deliveries"];
  /** The retention job; without it nothing is pruned. */
  retention?: AppDeps["retention"];
  /** APPROVALS (docs/api.md#four-eyes-approval); off by default. */
  approvals?: "off" | "required";
  /** APP_BASE_URL, the platform app's origin a notification's path links against; unset by default. */
  appBaseUrl?: string;
  /** CORS_ORIGINS; one allowed origin (`http://allowed.test`) by default. */
  corsOrigins?: string[];
  /** BETTER_AUTH_URL, the public base URL handed out in stream URLs; TEST_ORIGIN by default. */
  publicBaseUrl?: string;
  /** TRUST_PROXY (docs/scaling.md, "Running N instances behind a load balancer"); off by default. */
  trustProxy?: Config["trustProxy"];
  /** Node's bounds on receiving a request (server/app.ts defaultTimeouts otherwise). */
  timeouts?: AppDeps["timeouts"];
  /** The audit log's sealer and checkpoints; none by default. */
  auditLog?: AppDeps["auditLog"];
  /** LOG_REQUESTS: a request's info lines (`completed` by default). */
  logRequests?: Config["logRequests"];
  /** Where the limits count; the store that fits the database (rateLimitStoreFor) by default. */
  rateLimitStore?: AppDeps["rateLimitStore"];
};

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.db ?? (await openTestDb({ queryTimeoutSeconds: options.dbQueryTimeoutSeconds }));
  const auth = createAuth({
    db: db.db,
    secret: TEST_AUTH_SECRET,
    baseUrl: TEST_ORIGIN,
    // Any loopback port: tests that listen (the client example) get a random one.
    trustedOrigins: options.trustedOrigins ?? [TEST_ORIGIN, "http://127.0.0.1:*"],
    platformAdminEmails: [BOOTSTRAP_ADMIN_EMAIL],
    signUp: options.signUp,
  });
  // Names resolve from a table (test/helpers/dns.ts): no test asks the network.
  const push = createPushService({ vapid: null, lookup: testLookup, ...options.push });
  const app = await buildApp({
    config: {
      corsOrigins: options.corsOrigins ?? ["http://allowed.test"],
      logLevel: "silent",
      signUp: options.signUp,
      approvals: options.approvals,
      trustProxy: options.trustProxy,
      baseUrl: options.publicBaseUrl,
      appBaseUrl: options.appBaseUrl,
      logRequests: options.logRequests,
    },
    db: db.db,
    listen: db.listen,
    startRelay: db.driver === "postgres" ? db.startRelay : undefined,
    announcesAtOnce: db.driver === "pglite",
    auth,
    push,
    logger: options.logger ?? false,
    consoleDir: options.consoleDir,
    // Every test signs up its own users from one address; a test of the sign-up limit sets its own.
    limits: { signUp: { max: 100_000, timeWindowMs: 60_000 }, ...options.limits },
    rateLimitStore: options.rateLimitStore ?? rateLimitStoreFor(db),
    deliveries: options.deliveries,
    retention: options.retention,
    timeouts: options.timeouts,
    auditLog: options.auditLog,
  });
  const answers = checkAnswers(app, () => buildOpenApiDocument() as unknown as OpenApiDocument);
  app.addHook("onClose", async () => {
    if (answers.violations.length) throw new Error(`REST answers broke /openapi.json: ${JSON.stringify(answers.violations, null, 2)}`);
  });
  await app.ready();

  async function signUp(opts: { admin?: boolean; name?: string; email?: string } = {}): Promise<TestUser> {
    const email = opts.email ?? `user-${randomBytes(5).toString("hex")}@test.local`;
    const name = opts.name ?? `User ${email.split("@")[0]}`;
    const res = await app.inject({
      method: "POST",
      url: "/api/auth/sign-up/email",
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      payload: { name, email, password: TEST_PASSWORD },
    });
    if (res.statusCode !== 200) throw new Error(`sign-up failed: ${res.statusCode} ${res.body}`);
    const body = res.json() as { token: string; user: { id: string; role: string } };
    let role = body.user.role;
    if (opts.admin && role !== "admin") {
      await db.db.update(users).set({ role: "admin" }).where(eq(users.id, body.user.id));
      role = "admin";
    }
    return {
      id: body.user.id,
      name,
      email,
      role,
      token: body.token,
      headers: { authorization: `Bearer ${body.token}` },
    };
  }

  // One instance's remembered search totals, shared by its callers as by its requests.
  const searchTotals = createSearchTotals();
  return {
    db,
    app,
    auth,
    push,
    signUp,
    searchTotals,
    caller: (user, userAgent) =>
      createCaller(
        createContextInner(
          { db: db.db, push, approvals: options.approvals, appBaseUrl: options.appBaseUrl, searchTotals },
          { user: user ?? null, userAgent: userAgent ?? null },
        ),
      ),
    takeContractViolations: () => answers.violations.splice(0),
    contract: answers.checker,
  };
}

/**
 * Registers beforeAll/afterAll for a file and returns a getter: one database and app per file
 * (PGlite is heavy to start), shared by its tests, which make their own users and records.
 */
export function useTestApp(options: TestAppOptions = {}): () => TestApp {
  let testApp: TestApp | undefined;
  beforeAll(async () => {
    testApp = await createTestApp(options);
  });
  afterEach(() => {
    expect(testApp?.takeContractViolations() ?? [], "REST answers that break /openapi.json").toEqual([]);
  });
  afterAll(async () => {
    await testApp?.app.close();
    await testApp?.db.close();
  });
  return () => {
    if (!testApp) throw new Error("useTestApp: the app is not ready (call inside a test)");
    return testApp;
  };
}

/** A random positive cohort number, so tests sharing a database do not collide. */
export const uniqueCohortNumber = () => randomInt(1, 2_000_000_000);
