// The request context: the services every procedure may use, and the caller resolved once per request.
import type { FastifyRequest } from "fastify";
import type { Db } from "../db/client.js";
import type { Auth } from "./auth/better-auth.js";
import { type SessionInfo, type SessionUser, sessionResolver } from "./auth/session.js";
import type { ProcedureRateLimits } from "./http/rate-limit.js";
import type { UnreadHub } from "./live/unread-hub.js";
import type { UnreadCountMemory } from "./memory/counts.js";
import type { FlagMemory } from "./memory/flags.js";
import type { IdentityMemory } from "./memory/identity.js";
import type { PayloadLinks } from "./push/payload.js";
import type { PushService } from "./push/sender.js";

/** What the process holds for its whole life. */
export type Services = {
  db: Db;
  push: PushService;
  /** The per-caller limits procedures apply; none when absent (scripts and tests calling procedures directly). */
  rateLimits?: ProcedureRateLimits;
  /** The live unread counts of this instance's open streams; none for callers without HTTP. */
  live?: UnreadHub;
  /** The pros' stored statuses in this instance's memory (server/memory/); reads go to the database when absent. */
  flags?: FlagMemory;
  /** Users' unread counts in this instance's memory (server/memory/counts.ts); read from the database when absent. */
  unreadCounts?: UnreadCountMemory;
  /** APPROVALS: `required` puts cohort activation behind a change request (off when absent). */
  approvals?: "off" | "required";
  /** APP_BASE_URL: the platform app's origin, for the console's links to a notification's path (none when absent). */
  appBaseUrl?: string | null;
  /** Where a push's `navigate` leads (server/push/payload.ts): APP_BASE_URL and the console's inbox. */
  pushLinks?: PayloadLinks;
  /** SIGN_UP, shown to the console (open when absent). */
  signUp?: "open" | "closed";
  /** PUSH_SUBSCRIPTIONS_PER_USER: active push subscriptions per user (20 when absent). */
  pushSubscriptionsPerUser?: number;
};

export type Context = Services & {
  user: SessionUser | null;
  session: SessionInfo | null;
  /** The caller's user-agent header, stored with push subscriptions. */
  userAgent: string | null;
  /** The request's id (x-request-id), kept with the audit events it causes. */
  requestId: string | null;
};

/** A context without HTTP: tests and scripts call procedures with it through createCaller. */
export function createContextInner(
  services: Services,
  caller: { user?: SessionUser | null; session?: SessionInfo | null; userAgent?: string | null; requestId?: string | null } = {},
): Context {
  return {
    ...services,
    user: caller.user ?? null,
    session: caller.session ?? (caller.user ? { id: "inner", expiresAt: new Date(Date.now() + 3_600_000) } : null),
    userAgent: caller.userAgent ?? null,
    requestId: caller.requestId ?? null,
  };
}

/**
 * The context of one HTTP request: the session from its bearer token or cookie, from `identity` (this
 * instance's memory) while it can vouch for it.
 */
export function contextFactory(services: Services, auth: Auth, identity?: IdentityMemory) {
  const resolveSession = sessionResolver(auth, services.db, identity);
  return async function createContext(request: FastifyRequest): Promise<Context> {
    const resolved = await resolveSession(request);
    return createContextInner(services, {
      user: resolved?.user ?? null,
      session: resolved?.session ?? null,
      userAgent: request.headers["user-agent"] ?? null,
      requestId: request.id,
    });
  };
}
