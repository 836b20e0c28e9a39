// The acts of better-auth's admin plugin (/api/auth/admin/*) in the audit trail (docs/api.md#audit-trail):
// role changes, bans, impersonation, session revocations, created, updated and removed users, passwords.
//
// A better-auth plugin of hooks only, the supported way to observe endpoints: a `before` hook reads the
// target as it is (the `before` of the event), an `after` hook writes the event once the endpoint has
// answered, with the session that made the request (`ctx.context.session`: the admin's own, or an
// impersonation session whose `impersonatedBy` names the admin). A refused or failed act answers with an
// APIError and writes nothing; so does a call without a session (the start-up admin, audited by its own
// event). Reads (list-users, get-user, list-user-sessions, has-permission) are not audited.
//
// Not one transaction: the admin plugin writes through better-auth's adapter, which runs no transaction
// we can join (the drizzle adapter's `transaction` is off, and a hook cannot wrap the endpoint), so the
// event is written right after better-auth committed the act. Should that insert fail, the request
// answers 500 although the act took effect.
import type { BetterAuthPlugin } from "better-auth";
import { createAuthMiddleware, isAPIError } from "better-auth/api";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { type AuditAction, sessions, users } from "../../db/schema/index.js";
import { sessionTokenHash } from "../auth/hashed-session-tokens.js";
import { impersonatorOf } from "./impersonator.js";
import { type Actor, type AuditEntry, type AuditSource, recordAudit } from "./record.js";

/** A user as the trail shows it: never a password or a hash (those live in accounts, not read here). */
export const userColumns = {
  id: users.id,
  email: users.email,
  name: users.name,
  role: users.role,
  banned: users.banned,
  banReason: users.banReason,
  banExpires: users.banExpires,
};
export type AuditedUser = { [K in keyof typeof userColumns]: (typeof users.$inferSelect)[K] };

async function userAsItIs(db: Db, id: unknown): Promise<AuditedUser | null> {
  if (typeof id !== "string") return null;
  const [user] = await db.select(userColumns).from(users).where(eq(users.id, id));
  return user ?? null;
}

/** The same fields of a user better-auth returned. */
const asAudited = (user: Record<string, unknown>): AuditedUser => {
  const pick = <K extends keyof AuditedUser>(key: K) => (user[key] ?? null) as AuditedUser[K];
  return {
    id: pick("id"),
    email: pick("email"),
    name: pick("name"),
    role: pick("role"),
    banned: pick("banned"),
    banReason: pick("banReason"),
    banExpires: pick("banExpires"),
  };
};

type Body = Record<string, unknown>;
type Returned = Record<string, unknown> & { user?: Record<string, unknown>; session?: Record<string, unknown> };
/** The session that made the request, as better-auth's session middleware leaves it. */
type ActingSession = { session: { id: string; impersonatedBy?: string | null }; user: { id: string; email: string } };

/** What an act's event is made of; `before` is what the before hook read. */
type ActInput = { db: Db; body: Body; returned: Returned; before: unknown; session: ActingSession };
type ActEvent = Omit<AuditEntry, "action" | "id"> & {
  /** The actor when it is not the session's user (stop-impersonating: the admin the session returns to). */
  source?: { actor: Actor; impersonatorId: string | null };
};

type Act = {
  action: AuditAction;
  /** Reads what the act is about to change (body as sent; the act has not run and may yet be refused). */
  before?: (db: Db, body: Body) => Promise<unknown>;
  /** The event, or null when the act changed nothing the trail could name. */
  event: (input: ActInput) => ActEvent | null;
};

const target = (id: string) => ({ type: "user" as const, id });
const userBefore = (db: Db, body: Body) => userAsItIs(db, body.userId);
/** A change to a user: the user before (read first) and after (as better-auth returned it). */
const userChange =
  (returnedUser: (r: Returned) => Record<string, unknown> | undefined) =>
  ({ before, returned }: ActInput): ActEvent | null => {
    const after = returnedUser(returned);
    return before && after ? { target: target((before as AuditedUser).id), before, after: asAudited(after) } : null;
  };

/** Paths as better-auth names its endpoints (under basePath /api/auth). */
const acts: Record<string, Act> = {
  "/admin/create-user": {
    action: "user.create",
    event: ({ returned }) =>
      returned.user ? { target: target(String(returned.user.id)), before: null, after: asAudited(returned.user) } : null,
  },
  "/admin/update-user": { action: "user.update", before: userBefore, event: userChange((r) => r) },
  "/admin/set-role": { action: "user.set_role", before: userBefore, event: userChange((r) => r.user) },
  "/admin/ban-user": {
    action: "user.ban",
    before: userBefore,
    event: (input) => {
      const change = userChange((r) => r.user)(input);
      const reason = typeof input.body.banReason === "string" && input.body.banReason.trim() ? input.body.banReason : null;
      return change && { ...change, reason };
    },
  },
  "/admin/unban-user": { action: "user.unban", before: userBefore, event: userChange((r) => r.user) },
  "/admin/set-user-password": {
    action: "user.set_password",
    // The fact only: neither the password nor its hash.
    event: ({ body }) => (typeof body.userId === "string" ? { target: target(body.userId), before: null, after: null } : null),
  },
  "/admin/revoke-user-sessions": {
    action: "user.revoke_sessions",
    before: async (db, body) => {
      const user = await userAsItIs(db, body.userId);
      if (!user) return null;
      const open = await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, user.id));
      return { userId: user.id, sessionIds: open.map((s) => s.id) };
    },
    event: ({ before }) => {
      const found = before as { userId: string; sessionIds: string[] } | null;
      return found && { target: target(found.userId), before: { sessionIds: found.sessionIds }, after: null };
    },
  },
  "/admin/revoke-user-session": {
    action: "user.revoke_sessions",
    // The body names the session by its token, which the trail never shows: its id and user instead. The
    // table holds the token's hash, as better-auth's own lookup does (hashed-session-tokens.ts).
    before: async (db, body) => {
      if (typeof body.sessionToken !== "string") return null;
      const [found] = await db
        .select({ id: sessions.id, userId: sessions.userId })
        .from(sessions)
        .where(eq(sessions.token, sessionTokenHash(body.sessionToken)));
      return found ?? null;
    },
    event: ({ before }) => {
      const found = before as { id: string; userId: string } | null;
      return found && { target: target(found.userId), before: { sessionIds: [found.id] }, after: null };
    },
  },
  "/admin/remove-user": {
    action: "user.remove",
    before: userBefore,
    event: ({ before }) => (before ? { target: target((before as AuditedUser).id), before, after: null } : null),
  },
  "/admin/impersonate-user": {
    action: "user.impersonate",
    // By the admin, about the user; after: the impersonation session (never its token).
    event: ({ returned }) =>
      returned.user && returned.session
        ? {
            target: target(String(returned.user.id)),
            before: null,
            after: { sessionId: returned.session.id, expiresAt: returned.session.expiresAt },
          }
        : null,
  },
  "/admin/stop-impersonating": {
    action: "user.stop_impersonating",
    // Made with the impersonation session, which it ends; the actor is the admin it returns to (the
    // session better-auth answers with), the target the user who was impersonated.
    event: ({ returned, session }) =>
      returned.user && returned.session
        ? {
            target: target(session.user.id),
            before: { sessionId: session.session.id },
            after: null,
            source: {
              actor: { id: String(returned.user.id), email: String(returned.user.email) },
              impersonatorId: (returned.session.impersonatedBy as string | null | undefined) ?? null,
            },
          }
        : null,
  },
};

/** The better-auth plugin that writes the admin plugin's acts to the audit trail of `db`. */
export function auditAdminActs(db: Db) {
  // What each request's before hook read, by better-auth's context of that request (one per endpoint
  // call, shared by its hooks and the endpoint).
  const readBefore = new WeakMap<object, unknown>();
  const matcher = (ctx: { path?: string }) => ctx.path !== undefined && Object.hasOwn(acts, ctx.path);
  return {
    id: "audit-admin-acts",
    hooks: {
      before: [
        {
          matcher,
          handler: createAuthMiddleware(async (ctx) => {
            const act = acts[ctx.path]!;
            if (act.before) readBefore.set(ctx.context, await act.before(db, (ctx.body ?? {}) as Body));
          }),
        },
      ],
      after: [
        {
          matcher,
          handler: createAuthMiddleware(async (ctx) => {
            const act = acts[ctx.path]!;
            const { returned } = ctx.context;
            const session = ctx.context.session as ActingSession | null;
            // Refused or failed (an APIError), or no session (a server-side call): nothing to record.
            if (!session || returned === undefined || returned === null || isAPIError(returned) || typeof returned !== "object") return;
            const event = act.event({
              db,
              body: (ctx.body ?? {}) as Body,
              returned: returned as Returned,
              before: readBefore.get(ctx.context) ?? null,
              session,
            });
            if (!event) return;
            const { source: own, ...entry } = event;
            const source: AuditSource = {
              actor: own?.actor ?? { id: session.user.id, email: session.user.email },
              impersonatedBy: await impersonatorOf(db, own ? own.impersonatorId : session.session.impersonatedBy),
              // Set by mountAuth (server/auth/better-auth.ts) from the Fastify request's id.
              requestId: ctx.headers?.get("x-request-id") ?? null,
            };
            await recordAudit(db, source, { action: act.action, ...entry });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
