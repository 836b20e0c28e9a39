// The request context: the services every domain function may use, and the caller resolved once per request.
// Plain data, knowing nothing of HTTP or tRPC: the doors build it (server/request-context.ts), the domain reads it.
import type { Db } from "../db/client.js";
import type { SessionInfo, SessionUser } from "../db/schema/account-values.js";
import type { ProcedureRateLimits } from "./http/rate-limit.js";
import type { UnreadHub } from "./live/unread-hub.js";
import type { UnreadCountMemory } from "./memory/counts.js";
import type { FlagMemory } from "./memory/flags.js";
import type { SearchTotals } from "./memory/search-totals.js";
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
  /** Inbox search totals by the inbox state they were counted in (server/memory/search-totals.ts); counted each time when absent. */
  searchTotals?: SearchTotals;
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
  // Key by key: a spread of the services (`{ ...services, user }`) took ~3.7 µs a request in V8, this literal
  // ~20 ns (issue AE). The type makes a key of Context missing here a compile error.
  const ctx: { [K in keyof Required<Context>]: Context[K] } = {
    db: services.db,
    push: services.push,
    rateLimits: services.rateLimits,
    live: services.live,
    flags: services.flags,
    unreadCounts: services.unreadCounts,
    searchTotals: services.searchTotals,
    approvals: services.approvals,
    appBaseUrl: services.appBaseUrl,
    pushLinks: services.pushLinks,
    signUp: services.signUp,
    pushSubscriptionsPerUser: services.pushSubscriptionsPerUser,
    user: caller.user ?? null,
    session: caller.session ?? (caller.user ? { id: "inner", expiresAt: new Date(Date.now() + 3_600_000) } : null),
    userAgent: caller.userAgent ?? null,
    requestId: caller.requestId ?? null,
  };
  return ctx;
}

/** The context behind authedProcedure/adminProcedure: the caller is known. */
export type AuthedContext = Context & { user: SessionUser; session: SessionInfo };

/** Every domain function the procedures call is a plain function of its context and parsed input. */
export type HandlerArgs<I = undefined> = { ctx: AuthedContext; input: I };
