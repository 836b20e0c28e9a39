// Opens everything the service needs from its configuration: database (migrated), auth, push, app.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDb, type Db, type DbHandle } from "../db/client.js";
import { type AppDeps, buildApp } from "./app.js";
import { ensureBootstrapAdmin } from "./auth/admin-bootstrap.js";
import { type Auth, createAuth } from "./auth/better-auth.js";
import type { Config } from "./config.js";
import { rateLimitStoreFor } from "./http/rate-limit.js";
import { dbMetrics } from "./observability/metrics.js";
import { createPushService } from "./push/sender.js";

/**
 * The session signing secret: BETTER_AUTH_SECRET, or with the embedded database one generated once and
 * kept beside its data, so sessions survive a restart. A memory database gets a fresh one per process.
 */
export function authSecret(config: Pick<Config, "authSecret" | "pgliteDir">): string {
  if (config.authSecret) return config.authSecret;
  if (config.pgliteDir.startsWith("memory://")) return randomBytes(32).toString("base64url");
  const file = join(config.pgliteDir, "auth-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

const openDb = (config: Config) =>
  createDb({
    databaseUrl: config.databaseUrl,
    pgliteDir: config.pgliteDir,
    queryTimeoutSeconds: config.queryTimeoutSeconds,
    maxConnections: config.poolSize,
    observe: dbMetrics,
  });

const authOf = (config: Config, db: Db) =>
  createAuth({
    db,
    secret: authSecret(config),
    baseUrl: config.baseUrl,
    trustedOrigins: config.trustedOrigins,
    platformAdminEmails: config.platformAdminEmails,
    signUp: config.signUp,
  });

/** Migrations, then every configured admin (ADMIN_EMAIL, ADMIN_EMAILS); the outcome reported is the first one's. */
async function prepare(config: Config, handle: DbHandle, auth: Auth) {
  await handle.migrate();
  const outcomes = [];
  for (const admin of config.bootstrapAdmins) outcomes.push(await ensureBootstrapAdmin(handle.db, auth, admin));
  return outcomes[0] ?? null;
}

/**
 * A cluster's primary (server/cluster.ts) prepares the database once before any worker starts: drizzle's
 * migrator takes no lock, and workers making the same admin at once would race for it.
 */
export async function prepareDatabase(config: Config) {
  const handle = await openDb(config);
  try {
    return await prepare(config, handle, authOf(config, handle.db));
  } finally {
    await handle.close();
  }
}

/** `prepared`: a cluster worker, whose primary has migrated and made the admins (prepareDatabase). */
export async function openService(config: Config, options: { logger?: AppDeps["logger"]; prepared?: boolean } = {}) {
  const handle = await openDb(config);
  try {
    const auth = authOf(config, handle.db);
    // Before the port opens, so the first request already finds the admin.
    const bootstrap = options.prepared ? null : await prepare(config, handle, auth);
    const push = createPushService({
      vapid: config.vapid,
      allowHttpEndpoints: config.pushAllowHttpEndpoints,
      allowPrivateEndpoints: config.pushAllowPrivateEndpoints,
      ttlSeconds: config.pushTtlSeconds,
    });
    const app = await buildApp({
      config,
      db: handle.db,
      listen: handle.listen,
      startRelay: handle.driver === "postgres" ? handle.startRelay : undefined,
      announcesAtOnce: handle.driver === "pglite",
      auth,
      push,
      logger: options.logger,
      limits: {
        signInFailuresPerAddress: { max: config.signInPerAddressPerMinute, timeWindowMs: 60_000 },
        streamsPerUser: config.streamsPerUser,
        pushSubscriptionsPerUser: config.pushSubscriptionsPerUser,
        trpcBatchSize: config.trpcBatchSize,
        ofrepPerKey: { max: config.ofrepRequestsPerMinute, timeWindowMs: 60_000 },
        ofrepStreamsPerTarget: config.ofrepStreamsPerTarget,
        ofrepStreamsPerKey: config.ofrepStreamsPerKey,
      },
      rateLimitStore: rateLimitStoreFor(handle),
      deliveries: { retryBaseMs: config.pushRetryBaseMs, leaseSeconds: config.pushLeaseSeconds },
      retention: { days: config.retentionDays },
      auditLog: config.auditLog,
    });
    return { app, handle, bootstrap };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
