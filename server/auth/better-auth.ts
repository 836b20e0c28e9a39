// better-auth on the service's own database, and its mount at /api/auth/* on Fastify.
import { STATUS_CODES } from "node:http";
import {
  getCurrentAuthContextAsyncLocalStorage,
  getCurrentDBAdapterAsyncLocalStorage,
  getRequestStateAsyncLocalStorage,
} from "@better-auth/core/context";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { createAuthMiddleware } from "better-auth/api";
import { fromNodeHeaders } from "better-auth/node";
import { admin, bearer } from "better-auth/plugins";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Db } from "../../db/client.js";
import { accounts, sessions, users, verifications } from "../../db/schema/index.js";
import { inAsyncContext, quietWhenIdle } from "../http/async-context.js";
import { isProgramCall } from "../http/trusted-writes.js";
import { hashedSessionTokens, revokeOtherSessionsById } from "./hashed-session-tokens.js";

export type AuthOptions = {
  db: Db;
  secret: string;
  baseUrl: string;
  trustedOrigins: string[];
  /** Lower-cased addresses that become platform admins when they sign up (never in production). */
  platformAdminEmails: string[];
  /** "closed": nobody signs up; an admin creates accounts (POST /api/admin/users). */
  signUp?: "open" | "closed";
};

/**
 * The client address better-auth records with a session, set by mountAuth from request.ip, which honours
 * TRUST_PROXY. better-auth would otherwise read X-Forwarded-For, which any client writes when no proxy is
 * trusted. Whatever a request sends under this name is overwritten.
 */
export const CLIENT_ADDRESS_HEADER = "x-rn-client-address";

/** better-auth's own defaults, set here so the fast session lookup (session.ts) refreshes on the same day. */
export const SESSION_LIFETIME = { expiresInSeconds: 7 * 24 * 60 * 60, updateAgeSeconds: 24 * 60 * 60 } as const;

export function createAuth(options: AuthOptions) {
  const adminEmails = new Set(options.platformAdminEmails.map((e) => e.toLowerCase()));
  return betterAuth({
    appName: "Restriction Rollout & Notifications",
    baseURL: options.baseUrl,
    basePath: "/api/auth",
    secret: options.secret,
    trustedOrigins: options.trustedOrigins,
    // Session tokens are stored as their SHA-256, never as the bearer token itself (hashed-session-tokens.ts).
    database: hashedSessionTokens(
      drizzleAdapter(options.db, {
        provider: "pg",
        schema: { user: users, session: sessions, account: accounts, verification: verifications },
      }),
    ),
    emailAndPassword: { enabled: true, disableSignUp: options.signUp === "closed" },
    session: { expiresIn: SESSION_LIFETIME.expiresInSeconds, updateAge: SESSION_LIFETIME.updateAgeSeconds },
    // The admin plugin keeps its fields (role, ban, impersonatedBy) and refuses banned users' sign-ins; its
    // /api/auth/admin/* endpoints answer 404 (server/app.ts): accounts are administered by server/accounts/.
    // revokeOtherSessionsById: better-auth's revoke-other-sessions deletes by listed tokens, now hashes.
    plugins: [admin({ defaultRole: "user", adminRoles: ["admin"] }), bearer(), revokeOtherSessionsById()],
    hooks: {
      // Whoever knew the old password may hold a session: a new password ends every other one, so a person
      // who takes their account back (from an admin who set its password, say) holds it alone.
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path === "/change-password") return { context: { body: { ...(ctx.body ?? {}), revokeOtherSessions: true } } };
      }),
    },
    telemetry: { enabled: false },
    // better-auth turns the origin check off when NODE_ENV=test; keep it on so tests see production behaviour.
    advanced: { disableOriginCheck: false, ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] } },
    // Request limits are the service's own (Fastify), applied in front of this handler.
    rateLimit: { enabled: false },
    databaseHooks: {
      user: {
        create: {
          // Sign-up cannot set a role (the admin plugin marks it input: false); an admin's create-user and
          // the start-up bootstrap can, and keep theirs.
          before: async (user) => ({
            data: { ...user, role: adminEmails.has(user.email.toLowerCase()) ? "admin" : (user.role ?? "user") },
          }),
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

// better-auth's three AsyncLocalStorages (one process-wide set, whatever the instance), off between its
// calls (server/http/async-context.ts). The endpoint context's getter is marked deprecated for reading the
// context, not for this.
const storagesQuietWhenIdle = Promise.all([
  getRequestStateAsyncLocalStorage(),
  getCurrentAuthContextAsyncLocalStorage(),
  getCurrentDBAdapterAsyncLocalStorage(),
]).then((storages) => quietWhenIdle(...storages));

/**
 * Every call into better-auth goes through here (its handler and `auth.api`): the storages it runs in are
 * switched off again once no call is running.
 */
export const callAuth = <T>(call: () => Promise<T>): Promise<T> =>
  inAsyncContext(async () => {
    await storagesQuietWhenIdle;
    return call();
  });

/** Hands every /api/auth/* request to better-auth as a web Request. */
export function mountAuth(app: FastifyInstance, auth: Auth): void {
  const baseUrl = typeof auth.options.baseURL === "string" ? auth.options.baseURL : "http://localhost";
  app.route({
    method: ["GET", "POST"],
    url: "/api/auth/*",
    async handler(request, reply) {
      // The public base URL, never the request's Host: better-auth builds the URLs it answers from it.
      const url = new URL(request.url, baseUrl);
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const headers = fromNodeHeaders(request.headers);
      // The request's id (the valid x-request-id sent, or one made here), kept with the audit events it causes.
      headers.set("x-request-id", request.id);
      headers.set(CLIENT_ADDRESS_HEADER, request.ip);
      // A program's call (Node's fetch sends Sec-Fetch-Mode and no Origin) reaches better-auth as curl's does;
      // anything a browser sends keeps better-auth's origin check (docs/api.md#browsers).
      if (isProgramCall(request.headers)) for (const name of ["sec-fetch-mode", "sec-fetch-dest", "sec-fetch-user"]) headers.delete(name);
      const { response, text } = await callAuth(async () => {
        const answer = await auth.handler(new Request(url, { method: request.method, headers, body }));
        return { response: answer, text: answer.body ? await answer.text() : null };
      });
      reply.status(response.status);
      response.headers.forEach((value, key) => {
        if (key !== "set-cookie") reply.header(key, value);
      });
      // Several cookies may be set; Headers joins them, getSetCookie keeps them apart.
      const cookies = response.headers.getSetCookie();
      if (cookies.length) reply.header("set-cookie", cookies);
      if (response.status >= 400 && response.status < 500 && (!text || text === "null")) return sendEmptyRefusal(reply, response.status);
      return reply.send(text);
    },
  });
}

/**
 * The envelope's code (docs/api.md#errors) for a refusal better-auth gave without a body; any other 4xx is
 * the caller's malformed request.
 */
const EMPTY_REFUSAL_CODES: Partial<Record<number, string>> = {
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  429: "TOO_MANY_REQUESTS",
};

/**
 * better-auth answers some refusals with no body or `null` (a wrong method's 404, the admin plugin's 401),
 * which tells a client nothing (issue X): those get the service's envelope, with better-auth's status kept.
 */
function sendEmptyRefusal(reply: FastifyReply, status: number): FastifyReply {
  const body = {
    success: false,
    error: { code: EMPTY_REFUSAL_CODES[status] ?? "VALIDATION_ERROR", message: STATUS_CODES[status] ?? "Request refused" },
  };
  reply.removeHeader("content-length");
  return reply.status(status).header("content-type", "application/json; charset=utf-8").send(body);
}
