// buildApp: the one place where plugins and routes are registered. Fastify → (REST adapter | tRPC) →
// context → procedure middleware → handler → db.
import { randomUUID } from "node:crypto";
import cors from "@fastify/cors";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import { sql } from "drizzle-orm";
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from "fastify";
import type { Db, DbHandle } from "../db/client.js";
import type { Relay, RelayOptions } from "../db/outbox-relay.js";
import { verifierKeyText } from "./audit/log/note.js";
import type { AuditLogSettings } from "./audit/log-service.js";
import { apiKeyVerifier } from "./auth/api-keys.js";
import { type Auth, mountAuth } from "./auth/better-auth.js";
import { registerSignOut } from "./auth/sign-out.js";
import type { Config } from "./config.js";
import type { Context } from "./context.js";
import { toAppError } from "./errors/error-mapper.js";
import { AppError } from "./errors/errors.js";
import { fromFastifyError, logFailedAnswer, sendError } from "./errors/rest.js";
import { authOperation, registerRateLimits, registerRequestGuards } from "./http/auth-guards.js";
import { registerAuthTextGuard } from "./http/auth-text.js";
import { clientErrorHandler } from "./http/client-errors.js";
import { registerConsole } from "./http/console.js";
import { jsonNestsDeeperThan, tooDeeplyNested } from "./http/json-depth.js";
import { createRateLimiter, memoryRateLimitStore, type RateLimitStore } from "./http/rate-limit.js";
import { addRouteHook, isAuthRoute } from "./http/route-hooks.js";
import { apiSecurityHeaders, isApiUrl, securityHeaders } from "./http/security-headers.js";
import { registerUnreadBodyDrain } from "./http/unread-bodies.js";
import { startJobs } from "./jobs.js";
import { defaultLimits, defaultTimeouts, type Limits, type Timeouts } from "./limits.js";

export { defaultLimits, defaultTimeouts, type Limits, type Timeouts };

import { type RelaySettings, startChangeRelay } from "./live/relay.js";
import { fenceWrites, startMemory } from "./memory/index.js";
import { createSearchTotals } from "./memory/search-totals.js";
import { requestForLog } from "./observability/request-log.js";
import { requestObserver } from "./observability/request-metrics.js";
import { createFlagChangeHub, listenForFlagChanges } from "./ofrep/changes.js";
import { registerOfrep } from "./ofrep/routes.js";
import { pushExtrasOf, receiptCorsOptions } from "./producers/push-setup.js";
import { registerReceiptRoute } from "./producers/receipt-route.js";
import type { RetentionOptions } from "./producers/retention.js";
import { registerProducerRoutes } from "./producers/routes.js";
import type { PushService } from "./push/sender.js";
import { contextFactory } from "./request-context.js";
import { registerRestRoutes } from "./rest/adapter.js";
import { keyCreationReplay } from "./rest/api-key-replay.js";
import { registerAuditLogDoor } from "./rest/audit-log.js";
import { type KeyedOutside, registerIdempotency } from "./rest/idempotency.js";
import { buildOpenApiDocument } from "./rest/openapi.js";
import { restRoutes } from "./rest/routes.js";
import { createLiveUnreadCounts, registerUnreadCountStream } from "./rest/unread-stream.js";
import { appRouter } from "./routers/index.js";
import { registerTrpcDoor } from "./trpc/door.js";

export type AppDeps = {
  /** baseUrl: the public base URL (BETTER_AUTH_URL); absent, the one better-auth was given. */
  config: Pick<Config, "corsOrigins" | "logLevel"> &
    Partial<Pick<Config, "signUp" | "approvals" | "trustProxy" | "baseUrl" | "appBaseUrl" | "logRequests">>;
  db: Db;
  /** The database's change announcements (DbHandle.listen); without it live streams show only their first count. */
  listen?: DbHandle["listen"];
  /**
   * PostgreSQL: starts this instance's candidate for relaying the change outbox (DbHandle.startRelay);
   * without a relay on some instance, PostgreSQL's changes are recorded but never announced.
   */
  startRelay?: (options: RelayOptions) => Relay;
  relaySettings?: Partial<RelaySettings>;
  /**
   * The embedded PGlite: a change is announced, in process, before its commit returns, and listening never
   * breaks, so memory needs no heartbeat to vouch for it (server/memory/feed.ts).
   */
  announcesAtOnce?: boolean;
  auth: Auth;
  push: PushService;
  /** Overrides the pino logger settings (tests pass false). */
  logger?: FastifyServerOptions["logger"];
  /** Overrides the request limits (tests lower them). */
  limits?: Partial<Limits>;
  /** Where the built operator console is (default console/dist). */
  consoleDir?: string;
  /**
   * Where the limits count (rateLimitStoreFor(handle)): the PostgreSQL database every instance shares, or
   * when absent this process's memory, which only suits a single instance.
   */
  rateLimitStore?: RateLimitStore;
  /**
   * The durable push queue's timing (PUSH_RETRY_BASE_MS, PUSH_LEASE_SECONDS; tests shorten the poll). It runs
   * when VAPID keys are set.
   */
  deliveries?: { retryBaseMs?: number; pollMs?: number; leaseSeconds?: number };
  /** The retention job (RETENTION_DAYS): the service always runs it; without it nothing is pruned (tests). */
  retention?: Omit<RetentionOptions, "db" | "onError">;
  /** How long a client may take to send a request (tests shorten them; defaultTimeouts otherwise). */
  timeouts?: Partial<Timeouts>;
  /** The audit log's sealer and checkpoints (server/audit/log-service.ts); absent, this instance runs none (tests). */
  auditLog?: AuditLogSettings;
};

const TRPC_PREFIX = "/trpc";

/**
 * Keyed routes claimed outside one transaction (server/rest/idempotency.ts): a test push counts its rate
 * limit and sends pushes, a subscription resolves its endpoint's name. Held inside a transaction, forty
 * keyed test pushes took the whole pool and each waited for a second connection (issue Y, finding 3).
 */
const KEYED_OUTSIDE_TRANSACTION: Readonly<Record<string, KeyedOutside>> = {
  "POST /api/notifications/test/push": { sends: true },
  "POST /api/notifications/subscriptions": {},
};
/** Route templates in each request's log lines and metrics; a tRPC call's label is one of the procedures. */
const requests = requestObserver(`${TRPC_PREFIX}/:path`, Object.keys(appRouter._def.procedures));

/**
 * TRUST_PROXY as Fastify's trustProxy. Fastify 5 treats a bare number as "trust nothing", so a hop count is
 * given as the function proxy-addr calls for each hop, nearest first (0 is the connection's peer).
 */
function trustedHops(setting: false | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === "number" ? (_address, hop) => hop < setting : setting;
}

/**
 * The pino settings (deps.logger, or the service's own): whichever are given, a request's lines show its URL
 * without the value of a credential parameter (an OFREP stream URL's token).
 */
function loggerOptions(deps: AppDeps): FastifyServerOptions["logger"] {
  const given = deps.logger ?? {
    level: deps.config.logLevel,
    redact: ["req.headers.authorization", "req.headers.cookie", 'res.headers["set-auth-token"]'],
  };
  if (given === false) return false;
  const options = given === true ? {} : given;
  return { ...options, serializers: { ...options.serializers, req: requestForLog as never } };
}

/** Where clients reach the service: every URL it hands out starts here, never with a request's Host. */
function publicBaseUrl(deps: AppDeps): string {
  const base = deps.config.baseUrl ?? deps.auth.options.baseURL;
  if (typeof base !== "string") throw new Error("buildApp: no public base URL (config.baseUrl or better-auth's baseURL)");
  return base;
}

export async function buildApp(deps: AppDeps) {
  const limits = { ...defaultLimits, ...deps.limits };
  const rateLimitStore = deps.rateLimitStore ?? memoryRateLimitStore;
  const timeouts = { ...defaultTimeouts, ...deps.timeouts };
  const pageHeaders = securityHeaders();
  const apiHeaders = apiSecurityHeaders(pageHeaders);
  // What every answer carries: the security headers (the JSON API's or a page's) and the request's id.
  const stampAnswer = (request: FastifyRequest, reply: FastifyReply) =>
    reply.headers(isApiUrl(request.url) ? apiHeaders : pageHeaders).header("x-request-id", request.id);
  const app = Fastify({
    bodyLimit: limits.bodyBytes,
    // Fastify sets the server's requestTimeout from its own option (0, none, by default) after creating it.
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: timeouts.checkEveryMs },
    // TRUST_PROXY: request.ip (the limits' client address) and request.protocol come from the forwarding
    // headers of trusted hops only.
    trustProxy: trustedHops(deps.config.trustProxy ?? false),
    logger: loggerOptions(deps),
    // LOG_REQUESTS: unless `both`, the request observer writes one line per answer instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: (deps.config.logRequests ?? "completed") !== "both" }),
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
    },
    // Batched tRPC calls put every procedure name in one path segment.
    // Every documented path answers the same with one trailing slash (`GET /api/notifications/`).
    routerOptions: { maxParamLength: 5000, ignoreTrailingSlash: true },
    // Requests the HTTP parser refuses (431, a malformed header) get the envelope too.
    clientErrorHandler,
    childLoggerFactory: requests.childLoggerFactory,
    // Errors raised while routing (a malformed %-escape, an over-long path parameter) get the envelope too.
    frameworkErrors: (err, request, reply) => {
      const message = err.code === "FST_ERR_MAX_PARAM_LENGTH" ? "A path parameter is too long" : "Malformed URL";
      // No hook runs for these: the headers every answer carries are set here.
      stampAnswer(request, reply);
      sendError(reply, new AppError("VALIDATION_ERROR", message));
      requests.answered(request, reply, request.routeOptions.url, deps.config.logRequests);
    },
  });
  requests.register(app, deps.config.logRequests);

  // While shutting down, answers close their connection: a keep-alive socket left idle would hold the
  // server open until the client drops it.
  let draining = false;
  app.addHook("preClose", async () => {
    draining = true;
  });
  // A callback hook: every answer passes here (an async one costs a promise a request).
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (draining) reply.header("connection", "close");
    done(null, payload);
  });
  registerUnreadBodyDrain(app);

  // A POST with Content-Type: application/json and no body is an empty input, not a parse error.
  const jsonParser = app.getDefaultJsonParser("error", "ignore");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === "") return done(null, undefined);
    if (jsonNestsDeeperThan(text)) return done(tooDeeplyNested(), undefined);
    jsonParser(request, text, done);
  });

  const apiCors = {
    origin: deps.config.corsOrigins.length ? deps.config.corsOrigins : false,
    credentials: true,
    // ETag: a page on another origin reading the flag (the OFREP web provider) gets its 304s too.
    exposedHeaders: ["set-auth-token", "x-request-id", "idempotent-replayed", "etag"],
  };
  // Receipts come from the app's service worker and pages (APP_BASE_URL), never with credentials: their
  // route carries its own options (registerReceiptRoute). Static options, not a delegator: @fastify/cors
  // normalizes a delegator's answer on every request, ~3 % of an OFREP evaluation's CPU (issue AE).
  const receiptCors = receiptCorsOptions(deps.config.corsOrigins, deps.config.appBaseUrl ?? null);
  // Security headers and the request's id on every answer, CORS preflights included (this hook runs before
  // @fastify/cors's); the API reference page only loads its own scripts and styles.
  app.addHook("onRequest", (request, reply, done) => {
    stampAnswer(request, reply);
    done();
  });
  // No origin may call at all (no CORS_ORIGINS, no APP_BASE_URL): no CORS plugin, whose hook would read the
  // route's options and copy its own on every request to add nothing (~3 % of an OFREP evaluation, issue
  // AE). A preflight is then a 404, as the plugin answers it when CORS is off.
  if (apiCors.origin !== false || receiptCors.origin !== false) await app.register(cors, apiCors);

  app.setErrorHandler((err: FastifyError, _request, reply) => sendError(reply, fromFastifyError(err)));

  const authContext = await deps.auth.$context;
  registerRequestGuards(app, (origin) => authContext.isTrustedOrigin(origin));
  registerAuthTextGuard(app);
  registerRateLimits(app, limits, rateLimitStore);
  // Hot reads answered from memory while this instance can vouch for it (server/memory/, issue W).
  const memory = deps.listen
    ? await startMemory(deps.db, deps.listen, {
        inProcess: deps.announcesAtOnce,
        onError: (err) => app.log.warn({ err }, "memory: following the database failed"),
      })
    : undefined;
  if (memory) {
    fenceWrites(app, memory);
    app.addHook("onClose", () => memory.feed.stop());
  }
  const idempotency = registerIdempotency(app, {
    db: deps.db,
    auth: deps.auth,
    replays: keyCreationReplay,
    outside: KEYED_OUTSIDE_TRANSACTION,
    identity: memory?.identity,
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError("NOT_FOUND", `Route ${request.method} ${request.url.split("?")[0]} not found`)),
  );

  app.get("/health/live", async () => ({ success: true, data: { status: "live" } }));
  app.get("/health/ready", async (_request, reply) => {
    try {
      await deps.db.execute(sql`select 1`);
      return { success: true, data: { status: "ready" } };
    } catch (err) {
      return sendError(reply, new AppError("SERVICE_UNAVAILABLE", "The database is not answering", undefined, err));
    }
  });

  if (deps.config.signUp === "closed") {
    // Checked before better-auth (which refuses too, with a 400): the contract's answer is 403. On its routes
    // only, and no promise: an app-wide async hook cost every request a promise (issue AE).
    addRouteHook(app, "onRequest", isAuthRoute, (request, reply, done) => {
      if (authOperation(request.method, request.url) === "signUp") {
        sendError(reply, new AppError("FORBIDDEN", "Sign-up is closed: an admin creates accounts"));
      } else done();
    });
  }
  registerSignOut(app, deps.auth, deps.db);
  mountAuth(app, deps.auth);

  // On PostgreSQL writers only record their changes (migration 0018): this instance may be the one that
  // announces them. Before anything listens, and closed after every listener has stopped.
  const relay = deps.startRelay
    ? startChangeRelay(
        deps.startRelay,
        (err) => app.log.warn({ err }, "change relay: a batch failed; it is tried again"),
        deps.relaySettings,
      )
    : null;
  app.addHook("onClose", async () => relay?.stop());

  const pushLinks = { appBaseUrl: deps.config.appBaseUrl ?? null, inboxUrl: new URL("/console/inbox", publicBaseUrl(deps)).href };
  const rateLimits = { testPush: createRateLimiter(rateLimitStore, "test-push", limits.testPush) };
  const live = await createLiveUnreadCounts(app, { db: deps.db, listen: deps.listen, maxStreamsPerUser: limits.streamsPerUser });
  const createContext = contextFactory(
    {
      db: deps.db,
      push: deps.push,
      rateLimits,
      live,
      flags: memory?.flags,
      unreadCounts: memory?.unreadCounts,
      searchTotals: createSearchTotals(),
      approvals: deps.config.approvals,
      signUp: deps.config.signUp,
      appBaseUrl: deps.config.appBaseUrl,
      pushLinks,
      pushSubscriptionsPerUser: limits.pushSubscriptionsPerUser,
    },
    deps.auth,
    memory?.identity,
  );
  registerUnreadCountStream(app, live, createContext);
  await registerTrpcDoor(app, TRPC_PREFIX, {
    router: appRouter,
    maxBatchSize: limits.trpcBatchSize,
    createContext: ({ req }) => createContext(req),
    // The request's own logger: the line carries its reqId and route like every other line of the request.
    onError: ({ error, path, req }) => logFailedAnswer(req.log, toAppError(error).status, { err: error, path }, "tRPC procedure failed"),
  });

  // A keyed test push notes its first send: from then on even its failure is kept, so a retry never pushes again.
  const restContext = async (request: FastifyRequest): Promise<Context> => {
    const ctx = await createContext(request);
    if (!idempotency.tracksSends(request)) return ctx;
    const send: PushService["send"] = (targets, payload) => {
      idempotency.sent(request);
      return ctx.push.send(targets, payload);
    };
    return { ...ctx, push: { ...ctx.push, send } };
  };
  registerRestRoutes(app, restRoutes, restContext, idempotency.runKeyed);

  const verifyKey = apiKeyVerifier(deps.db, (err) => app.log.warn({ err }, "API key: recording its last use failed"), memory?.identity);
  const signer = deps.auditLog?.signer ?? null;
  registerAuditLogDoor(app, { db: deps.db, verifyKey, createContext, verifierKey: signer && verifierKeyText(signer) });
  const { queue } = startJobs(app, deps);
  const pushExtras = pushExtrasOf(deps.push, pushLinks);
  registerProducerRoutes(app, {
    db: deps.db,
    ingestPush: pushExtras,
    verifyKey,
    queued: () => queue?.wake(),
    unreadCounts: memory?.unreadCounts,
  });
  registerReceiptRoute(app, {
    db: deps.db,
    tokens: pushExtras?.tokens ?? null,
    limiter: createRateLimiter(rateLimitStore, "push-receipt", limits.receipts),
    cors: receiptCors,
  });

  const onFlagError = (err: unknown) => app.log.warn({ err }, "OFREP: reading a flag change failed");
  const flagChanges = createFlagChangeHub(deps.db, onFlagError, {
    perTarget: limits.ofrepStreamsPerTarget,
    perKey: limits.ofrepStreamsPerKey,
  });
  const stopListening = await listenForFlagChanges(flagChanges, deps.listen, onFlagError);
  app.addHook("onClose", stopListening);
  await registerOfrep(app, {
    db: deps.db,
    verifyKey,
    limiter: createRateLimiter(memoryRateLimitStore, "ofrep", limits.ofrepPerKey),
    hub: flagChanges,
    flags: memory?.flags,
    secret: authContext.secret,
    publicBaseUrl: publicBaseUrl(deps),
  });

  // The API reference: generated from the route table, served as JSON and as a Swagger UI page.
  const openApiDocument = buildOpenApiDocument(restRoutes);
  app.get("/openapi.json", async () => openApiDocument);
  await app.register(swagger, {
    mode: "static",
    specification: { document: openApiDocument as never },
  });
  await app.register(swaggerUi, { routePrefix: "/docs", uiConfig: { url: "/openapi.json" } as never });

  await registerConsole(app, deps.consoleDir);
  return app;
}
