// The environment, parsed once at start-up. A bad value stops the service with one line naming it.
import { createECDH } from "node:crypto";
import { availableParallelism } from "node:os";
import webpush from "web-push";
import { z } from "zod";
import { databaseEnvShape, describeEnvIssues, withoutEmptyValues } from "../db/config.js";
import { parseSignerKey, type Signer } from "./audit/log/note.js";
import type { RequestLogMode } from "./observability/request-metrics.js";
import { appleRefusesSubject, VAPID_SUBJECT_RULE, vapidSubjectProblem } from "./push/vapid-subject.js";

const flag = z
  .enum(["true", "false", "1", "0", ""])
  .optional()
  .transform((v) => v === "true" || v === "1");

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

const origin = z.url({ protocol: /^https?$/ }).transform((u) => new URL(u).origin);

const port = z.coerce.number().int().min(0).max(65535);

const APP_BASE_URL_RULE =
  "must be an https: origin (or http: on loopback), such as https://app.example.com, with no path, query or credentials";
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * APP_BASE_URL: the platform app's origin, which a notification's path (`/leads/7`) is relative to (CONTRACT
 * part five). An origin only: a path here would be silently dropped or doubled when a path is joined to it.
 * http: only on loopback, so a deployed console never links people to a cleartext app.
 */
const appBaseUrl = z
  .string()
  .optional()
  .transform((v, ctx): string | null => {
    if (v === undefined) return null;
    let url: URL;
    try {
      url = new URL(v.trim());
    } catch {
      ctx.addIssue({ code: "custom", message: APP_BASE_URL_RULE });
      return z.NEVER;
    }
    const schemeOk = url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOST.test(url.hostname));
    const originOnly =
      url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password && !v.includes("?") && !v.includes("#");
    if (!schemeOk || !originOnly) {
      ctx.addIssue({ code: "custom", message: APP_BASE_URL_RULE });
      return z.NEVER;
    }
    return url.origin;
  });

/** A proxy's address as Fastify's trustProxy (proxy-addr) takes it: an IP, a CIDR range, or a named range. */
const proxyAddress = z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6(), z.enum(["loopback", "linklocal", "uniquelocal"])]);

/**
 * TRUST_PROXY: `false`, a hop count, or the proxies' addresses (docs/scaling.md, "Running N instances behind
 * a load balancer"). `true` is refused: trusting every hop lets any client write its own X-Forwarded-For.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((v, ctx): false | number | string[] => {
    const value = (v ?? "false").trim().toLowerCase();
    if (value === "false" || value === "0") return false;
    if (/^\d+$/.test(value) && Number(value) <= 100) return Number(value);
    const items = value.split(",").map((s) => s.trim());
    const bad = items.filter((item) => !proxyAddress.safeParse(item).success);
    if (!bad.length) return items;
    ctx.addIssue({
      code: "custom",
      message: `must be false, a hop count (1 to 100) or a comma-separated list of proxy addresses or CIDR ranges; "${bad[0]}" is none`,
    });
    return z.NEVER;
  });

/** CLUSTER_WORKERS: how many worker processes serve PORT (server/cluster.ts); `auto`, one per core. */
const clusterWorkers = z
  .string()
  .optional()
  .transform((v, ctx): number => {
    const value = (v ?? "1").trim().toLowerCase();
    if (value === "auto") return availableParallelism();
    if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 256) return Number(value);
    ctx.addIssue({ code: "custom", message: "must be a whole number from 1 to 256, or auto (one per core)" });
    return z.NEVER;
  });

const envSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  METRICS_PORT: port.optional(),
  CLUSTER_WORKERS: clusterWorkers,
  ...databaseEnvShape,
  BETTER_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  BETTER_AUTH_URL: z.url({ protocol: /^https?$/ }).optional(),
  VAPID_PUBLIC_KEY: z.string().min(1).optional(),
  VAPID_PRIVATE_KEY: z.string().min(1).optional(),
  VAPID_SUBJECT: z
    .string()
    .refine((subject) => vapidSubjectProblem(subject) === null, VAPID_SUBJECT_RULE)
    .optional(),
  NODE_ENV: z.string().optional(),
  PLATFORM_ADMIN_EMAILS: list,
  ADMIN_EMAIL: z.email("must be an e-mail address").optional(),
  ADMIN_EMAILS: list.pipe(z.array(z.email("must be comma-separated e-mail addresses"))),
  ADMIN_PASSWORD: z.string().min(12, "must be at least 12 characters").max(128, "must be at most 128 characters").optional(),
  ADMIN_NAME: z.string().max(200, "must be at most 200 characters").optional(),
  SIGN_UP: z.enum(["open", "closed"], "must be open or closed").default("open"),
  APPROVALS: z.enum(["off", "required"], "must be off or required").default("off"),
  TRUSTED_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => parseOrigins(v, ctx)),
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => parseOrigins(v, ctx)),
  TRUST_PROXY: trustProxy,
  PUSH_ALLOW_HTTP_ENDPOINTS: flag,
  PUSH_ALLOW_PRIVATE_ENDPOINTS: flag,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  LOG_REQUESTS: z.enum(["completed", "both", "errors"], "must be completed, both or errors").default("completed"),
  STREAMS_PER_USER: z.coerce.number().int().min(1).max(1000).default(32),
  TRPC_MAX_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(50),
  SIGN_IN_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  OFREP_REQUESTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000_000).default(30_000),
  OFREP_STREAMS_PER_TARGET: z.coerce.number().int().min(1).max(100_000).default(32),
  OFREP_STREAMS_PER_KEY: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  PUSH_TTL_SECONDS: z.coerce.number().int().min(0).max(2_419_200).default(86_400),
  PUSH_RETRY_BASE_MS: z.coerce.number().int().min(1).max(300_000).default(1000),
  PUSH_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  PUSH_SUBSCRIPTIONS_PER_USER: z.coerce.number().int().min(1).max(1000).default(20),
  APP_BASE_URL: appBaseUrl,
  RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(30),
  AUDIT_SIGNING_KEY: z
    .string()
    .optional()
    .transform((v, ctx): Signer | null => {
      if (v === undefined) return null;
      try {
        return parseSignerKey(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
        return z.NEVER;
      }
    }),
  AUDIT_CHECKPOINT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  AUDIT_CHECKPOINT_DIR: z.string().min(1).optional(),
  AUDIT_CHECKPOINT_URL: z.url({ protocol: /^https?$/, error: "must be an http: or https: URL" }).optional(),
});

function parseOrigins(value: string | undefined, ctx: z.RefinementCtx): string[] {
  const out: string[] = [];
  for (const item of (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const parsed = origin.safeParse(item);
    if (parsed.success) out.push(parsed.data);
    else ctx.addIssue({ code: "custom", message: `"${item}" is not an http(s) origin` });
  }
  return out;
}

export type Vapid = { publicKey: string; privateKey: string; subject: string };
/** An admin account made sure of at start-up (ADMIN_EMAIL or one of ADMIN_EMAILS, ADMIN_PASSWORD, ADMIN_NAME). */
export type BootstrapAdmin = {
  email: string;
  password: string;
  name: string;
  /** The setting that names it, for start-up's one line. */
  setting?: string;
};

export type Config = {
  port: number;
  host: string;
  /** Where Prometheus metrics are served (`GET /metrics`, on `host`); null: not at all. */
  metricsPort: number | null;
  /** CLUSTER_WORKERS: worker processes behind PORT (node:cluster, server/cluster.ts); 1: this process serves. */
  clusterWorkers: number;
  databaseUrl: string | undefined;
  pgliteDir: string;
  /** DB_QUERY_TIMEOUT_SECONDS; undefined: db/client.ts's default. */
  queryTimeoutSeconds: number | undefined;
  /** DB_POOL_SIZE; undefined: db/client.ts's default. */
  poolSize: number | undefined;
  /** STREAMS_PER_USER: live streams one user may have open on one instance. */
  streamsPerUser: number;
  /** TRPC_MAX_BATCH_SIZE: calls in one tRPC batch. */
  trpcBatchSize: number;
  /** SIGN_IN_PER_ADDRESS_PER_MINUTE: failed sign-ins one client address may make a minute, whatever the account. */
  signInPerAddressPerMinute: number;
  /** OFREP_REQUESTS_PER_MINUTE: evaluations and stream connections one API key may make on one instance. */
  ofrepRequestsPerMinute: number;
  /** OFREP_STREAMS_PER_TARGET: open OFREP event streams per key and targeting key. */
  ofrepStreamsPerTarget: number;
  /** OFREP_STREAMS_PER_KEY: open OFREP event streams per key on one instance. */
  ofrepStreamsPerKey: number;
  /** PUSH_TTL_SECONDS: how long a push service keeps an undelivered message. */
  pushTtlSeconds: number;
  /** PUSH_RETRY_BASE_MS: the durable queue's first retry delay, doubling after. */
  pushRetryBaseMs: number;
  /** PUSH_LEASE_SECONDS: how long a queue instance holds a delivery it claimed; its send is cut before then. */
  pushLeaseSeconds: number;
  /** PUSH_SUBSCRIPTIONS_PER_USER: active push subscriptions per user; a new one deactivates the least recently updated. */
  pushSubscriptionsPerUser: number;
  /** RETENTION_DAYS: producer events and push deliveries older than this are deleted (server/producers/retention.ts). */
  retentionDays: number;
  authSecret: string | undefined;
  /** The server's own base URL: better-auth's baseURL and the default trusted origin. */
  baseUrl: string;
  vapid: Vapid | null;
  /** NODE_ENV=production: development conveniences (PLATFORM_ADMIN_EMAILS) are off. */
  production: boolean;
  /** Addresses that become platform admins when they sign up; always empty in production. */
  platformAdminEmails: string[];
  bootstrapAdmin: BootstrapAdmin | null;
  /**
   * Every admin made sure of at start-up: ADMIN_EMAIL, then ADMIN_EMAILS, each once. Deployment access is the
   * trust domain that makes the first admins; after that a grant needs a second admin while approvals are required.
   */
  bootstrapAdmins: BootstrapAdmin[];
  signUp: "open" | "closed";
  /** APPROVALS: `required` puts cohort activation behind a second admin's approval (docs/api.md#four-eyes-approval). */
  approvals: "off" | "required";
  /** APP_BASE_URL: the platform app's origin; a notification's path links against it (null: shown as text). */
  appBaseUrl: string | null;
  /** What start-up should tell the operator about settings it ignores. */
  warnings: string[];
  trustedOrigins: string[];
  corsOrigins: string[];
  pushAllowHttpEndpoints: boolean;
  pushAllowPrivateEndpoints: boolean;
  /**
   * TRUST_PROXY, Fastify's `trustProxy`: which hops' forwarding headers (X-Forwarded-For, -Proto) say who
   * the client is. false: none, the connection's own address counts.
   */
  trustProxy: false | number | string[];
  logLevel: z.infer<typeof envSchema>["LOG_LEVEL"];
  /**
   * LOG_REQUESTS: a request's lines at info level. completed: one line when answered, with the request's
   * fields (issue AE); both: Fastify's "incoming request" line too; errors: one line for answers of 400 and up.
   */
  logRequests: RequestLogMode;
  /**
   * The audit log (docs/api.md#audit-log): AUDIT_SIGNING_KEY signs a checkpoint at most every
   * AUDIT_CHECKPOINT_SECONDS, written to AUDIT_CHECKPOINT_DIR and/or POSTed to AUDIT_CHECKPOINT_URL. Without a
   * key the log is still built and its proofs served; nothing is signed or published.
   */
  auditLog: { signer: Signer | null; checkpointSeconds: number; destinations: { dir: string | null; url: string | null } };
};

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError whose message is one line per bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(withoutEmptyValues(env));
  if (!parsed.success) throw new ConfigError(describeEnvIssues(parsed.error));
  const e = parsed.data;
  if (e.DATABASE_URL && !e.BETTER_AUTH_SECRET) {
    throw new ConfigError("BETTER_AUTH_SECRET: required when DATABASE_URL is set");
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError("METRICS_PORT: must differ from PORT (metrics are never served on the API port)");
  }
  if (e.CLUSTER_WORKERS > 1 && !e.DATABASE_URL) {
    throw new ConfigError(
      "CLUSTER_WORKERS: needs DATABASE_URL (PostgreSQL); the embedded PGlite is one process's data folder, which a second worker cannot open",
    );
  }
  if (e.ADMIN_EMAIL && !e.ADMIN_PASSWORD) throw new ConfigError("ADMIN_PASSWORD: required when ADMIN_EMAIL is set");
  if (e.ADMIN_EMAILS.length && !e.ADMIN_PASSWORD) throw new ConfigError("ADMIN_PASSWORD: required when ADMIN_EMAILS is set");
  if (e.ADMIN_PASSWORD && !e.ADMIN_EMAIL && !e.ADMIN_EMAILS.length) {
    throw new ConfigError("ADMIN_EMAIL: required when ADMIN_PASSWORD is set");
  }
  const adminName = e.ADMIN_NAME?.trim() || "Admin";
  const bootstrapAdmins: BootstrapAdmin[] = [];
  for (const [setting, address] of [
    ...(e.ADMIN_EMAIL ? [["ADMIN_EMAIL", e.ADMIN_EMAIL] as const] : []),
    ...e.ADMIN_EMAILS.map((address) => ["ADMIN_EMAILS", address] as const),
  ]) {
    const email = address.toLowerCase();
    if (e.ADMIN_PASSWORD && !bootstrapAdmins.some((a) => a.email === email)) {
      // ADMIN_NAME is one name: given to every ADMIN_EMAILS account too, the Users list would show rows
      // nobody can tell apart. Each of those is named by its own address (changeable later).
      bootstrapAdmins.push({ email, password: e.ADMIN_PASSWORD, name: setting === "ADMIN_EMAILS" ? email : adminName, setting });
    }
  }
  const production = e.NODE_ENV === "production";
  const warnings =
    production && e.PLATFORM_ADMIN_EMAILS.length
      ? ["PLATFORM_ADMIN_EMAILS is ignored in production: use ADMIN_EMAIL and ADMIN_PASSWORD"]
      : [];
  if (e.DB_POOL_SIZE !== undefined && !e.DATABASE_URL) {
    warnings.push("DB_POOL_SIZE is ignored on the embedded PGlite, which has one connection: it sizes the PostgreSQL pool");
  }
  if (!e.AUDIT_SIGNING_KEY && (e.AUDIT_CHECKPOINT_DIR || e.AUDIT_CHECKPOINT_URL)) {
    warnings.push("AUDIT_CHECKPOINT_DIR/AUDIT_CHECKPOINT_URL are set but AUDIT_SIGNING_KEY is not: no checkpoint is signed or written");
  }
  const vapid = parseVapid(e.VAPID_PUBLIC_KEY, e.VAPID_PRIVATE_KEY, e.VAPID_SUBJECT);
  if (vapid && appleRefusesSubject(vapid.subject)) {
    warnings.push(
      `VAPID_SUBJECT ${e.VAPID_SUBJECT ? `"${vapid.subject}"` : `is unset (so "${vapid.subject}")`}: Apple's push service refuses a placeholder host (403 BadJwtToken), so pushes to Safari and iOS are not sent; use a real mailto: address or https: URL`,
    );
  }
  const host = e.HOST === "0.0.0.0" || e.HOST === "::" ? "localhost" : e.HOST;
  const baseUrl = e.BETTER_AUTH_URL ?? `http://${host.includes(":") ? `[${host}]` : host}:${e.PORT}`;
  return {
    port: e.PORT,
    host: e.HOST,
    metricsPort: e.METRICS_PORT ?? null,
    clusterWorkers: e.CLUSTER_WORKERS,
    databaseUrl: e.DATABASE_URL,
    pgliteDir: e.PGLITE_DIR,
    queryTimeoutSeconds: e.DB_QUERY_TIMEOUT_SECONDS,
    poolSize: e.DB_POOL_SIZE,
    streamsPerUser: e.STREAMS_PER_USER,
    trpcBatchSize: e.TRPC_MAX_BATCH_SIZE,
    signInPerAddressPerMinute: e.SIGN_IN_PER_ADDRESS_PER_MINUTE,
    ofrepRequestsPerMinute: e.OFREP_REQUESTS_PER_MINUTE,
    ofrepStreamsPerTarget: e.OFREP_STREAMS_PER_TARGET,
    ofrepStreamsPerKey: e.OFREP_STREAMS_PER_KEY,
    pushTtlSeconds: e.PUSH_TTL_SECONDS,
    pushRetryBaseMs: e.PUSH_RETRY_BASE_MS,
    pushLeaseSeconds: e.PUSH_LEASE_SECONDS,
    pushSubscriptionsPerUser: e.PUSH_SUBSCRIPTIONS_PER_USER,
    retentionDays: e.RETENTION_DAYS,
    authSecret: e.BETTER_AUTH_SECRET,
    baseUrl,
    vapid,
    production,
    platformAdminEmails: production ? [] : e.PLATFORM_ADMIN_EMAILS.map((s) => s.toLowerCase()),
    bootstrapAdmin:
      e.ADMIN_EMAIL && e.ADMIN_PASSWORD ? { email: e.ADMIN_EMAIL.toLowerCase(), password: e.ADMIN_PASSWORD, name: adminName } : null,
    bootstrapAdmins,
    signUp: e.SIGN_UP,
    approvals: e.APPROVALS,
    appBaseUrl: e.APP_BASE_URL,
    warnings,
    trustedOrigins: e.TRUSTED_ORIGINS.length ? e.TRUSTED_ORIGINS : [new URL(baseUrl).origin],
    corsOrigins: e.CORS_ORIGINS,
    pushAllowHttpEndpoints: e.PUSH_ALLOW_HTTP_ENDPOINTS,
    pushAllowPrivateEndpoints: e.PUSH_ALLOW_PRIVATE_ENDPOINTS,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    logRequests: e.LOG_REQUESTS,
    auditLog: {
      signer: e.AUDIT_SIGNING_KEY,
      checkpointSeconds: e.AUDIT_CHECKPOINT_SECONDS,
      destinations: { dir: e.AUDIT_CHECKPOINT_DIR ?? null, url: e.AUDIT_CHECKPOINT_URL ?? null },
    },
  };
}

function parseVapid(publicKey?: string, privateKey?: string, subject?: string): Vapid | null {
  if (!publicKey && !privateKey) return null;
  if (!publicKey) throw new ConfigError("VAPID_PUBLIC_KEY: required when VAPID_PRIVATE_KEY is set");
  if (!privateKey) throw new ConfigError("VAPID_PRIVATE_KEY: required when VAPID_PUBLIC_KEY is set");
  const vapidSubject = subject ?? "mailto:admin@localhost";
  try {
    // web-push validates the key lengths and encodings; a JWT built now proves the keys are usable.
    webpush.getVapidHeaders("https://push.example.invalid", vapidSubject, publicKey, privateKey, "aes128gcm");
  } catch (err) {
    throw new ConfigError(`VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY: ${(err as Error).message}`);
  }
  // Two valid keys that do not belong together would sign pushes every push service rejects.
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(privateKey, "base64url"));
  if (!ecdh.getPublicKey().equals(Buffer.from(publicKey, "base64url"))) {
    throw new ConfigError("VAPID_PUBLIC_KEY: does not match VAPID_PRIVATE_KEY");
  }
  return { publicKey, privateKey, subject: vapidSubject };
}
