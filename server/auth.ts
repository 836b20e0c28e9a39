// better-auth on the service's own database, and its mount at /api/auth/* on Fastify.
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { fromNodeHeaders } from "better-auth/node";
import { admin, bearer } from "better-auth/plugins";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../db/client.js";
import { accounts, sessions, users, verifications } from "../db/schema/index.js";

export type AuthOptions = {
  db: Db;
  secret: string;
  baseUrl: string;
  trustedOrigins: string[];
  /** Lower-cased addresses that become platform admins when they sign up. */
  platformAdminEmails: string[];
};

export function createAuth(options: AuthOptions) {
  const adminEmails = new Set(options.platformAdminEmails.map((e) => e.toLowerCase()));
  return betterAuth({
    appName: "Restriction Rollout & Notifications",
    baseURL: options.baseUrl,
    basePath: "/api/auth",
    secret: options.secret,
    trustedOrigins: options.trustedOrigins,
    database: drizzleAdapter(options.db, {
      provider: "pg",
      schema: { user: users, session: sessions, account: accounts, verification: verifications },
    }),
    emailAndPassword: { enabled: true },
    plugins: [admin({ defaultRole: "user", adminRoles: ["admin"] }), bearer()],
    telemetry: { enabled: false },
    // better-auth turns the origin check off when NODE_ENV=test; keep it on so tests see production behaviour.
    advanced: { disableOriginCheck: false },
    // Request limits are the service's own (Fastify), applied in front of this handler.
    rateLimit: { enabled: false },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => ({
            data: { ...user, role: adminEmails.has(user.email.toLowerCase()) ? "admin" : "user" },
          }),
        },
      },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

export type SessionUser = { id: string; name: string; email: string; role: string };
export type SessionInfo = { id: string; expiresAt: Date };
export type ResolvedSession = { user: SessionUser; session: SessionInfo } | null;

/** The caller's session from a bearer token or the session cookie; null when there is none or it is bad. */
export async function resolveSession(auth: Auth, request: FastifyRequest): Promise<ResolvedSession> {
  if (!request.headers.authorization && !request.headers.cookie) return null;
  const found = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
  if (!found) return null;
  const { user, session } = found;
  return {
    user: { id: user.id, name: user.name, email: user.email, role: user.role ?? "user" },
    session: { id: session.id, expiresAt: session.expiresAt },
  };
}

/** Hands every /api/auth/* request to better-auth as a web Request. */
export function mountAuth(app: FastifyInstance, auth: Auth): void {
  app.route({
    method: ["GET", "POST"],
    url: "/api/auth/*",
    async handler(request, reply) {
      const url = new URL(request.url, `http://${request.headers.host ?? "localhost"}`);
      const body = request.body === undefined ? undefined : JSON.stringify(request.body);
      const response = await auth.handler(
        new Request(url, { method: request.method, headers: fromNodeHeaders(request.headers), body }),
      );
      reply.status(response.status);
      response.headers.forEach((value, key) => {
        if (key !== "set-cookie") reply.header(key, value);
      });
      // Several cookies may be set; Headers joins them, getSetCookie keeps them apart.
      const cookies = response.headers.getSetCookie();
      if (cookies.length) reply.header("set-cookie", cookies);
      return reply.send(response.body ? await response.text() : null);
    },
  });
}
