// The caller's session, resolved once per request. A bearer token or the signed session cookie takes one
// indexed join (sessions ⋈ users, expiry checked in SQL), or none while memory can vouch for the session;
// better-auth's getSession costs several times that in CPU (cookie signing round-trip, two queries through
// its adapter): a cookie request through it served ~290 a second where a bearer one served ~11,500 (issue
// AE). Everything the fast path does not cover (unknown or expired tokens, sessions due for their daily
// refresh, a cookie header better-auth might read otherwise) still goes to better-auth, so its rules
// (refresh, deleting expired sessions) stay the only ones.
import { fromNodeHeaders } from "better-auth/node";
import { and, eq, gt, sql } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import { textArray } from "../../db/arrays.js";
import type { Db } from "../../db/client.js";
import { preparedFor } from "../../db/prepared.js";
import { isActingAdmin, type ResolvedSession, type SessionInfo, type SessionUser } from "../../db/schema/account-values.js";
import { sessions, users } from "../../db/schema/index.js";
import type { NowOrLater } from "../http/now-or-later.js";
import { recalled } from "../memory/feed.js";
import type { IdentityMemory } from "../memory/identity.js";
import { type Auth, callAuth, SESSION_LIFETIME } from "./better-auth.js";
import { sessionTokenHash } from "./hashed-session-tokens.js";
import { sessionTokenReader } from "./session-token.js";

export type { ResolvedSession, SessionInfo, SessionUser };

/** True once better-auth would extend the session (it does so when `updateAge` has passed since the last). */
export const dueForRefresh = (expiresAt: Date, now = Date.now()) =>
  expiresAt.getTime() - SESSION_LIFETIME.expiresInSeconds * 1000 + SESSION_LIFETIME.updateAgeSeconds * 1000 <= now;

const sessionByTokenStatement = preparedFor((db) =>
  db
    .select({
      user: { id: users.id, name: users.name, email: users.email, role: users.role },
      session: { id: sessions.id, expiresAt: sessions.expiresAt, impersonatedBy: sessions.impersonatedBy },
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.token, sql.placeholder("token")), gt(sessions.expiresAt, sql`now()`)))
    .prepare("session_by_token"),
);

/** The table holds each token's hash only (hashed-session-tokens.ts), so the token is hashed to look it up. */
async function sessionByToken(db: Db, token: string) {
  const [row] = await sessionByTokenStatement(db).execute({ token: sessionTokenHash(token) });
  return row;
}

/**
 * The admin behind an impersonation session while they are still an admin who can act; undefined once they
 * are not (demoted, banned, removed), and the session then signs in nobody: it was only ever theirs.
 */
async function impersonatingAdmin(db: Db, adminId: string): Promise<{ id: string; email: string } | undefined> {
  const [admin] = await db
    .select({ id: users.id, email: users.email, role: users.role, banned: users.banned, banExpires: users.banExpires })
    .from(users)
    .where(eq(users.id, adminId));
  return admin && isActingAdmin(admin, Date.now()) ? { id: admin.id, email: admin.email } : undefined;
}

async function viaBetterAuth(auth: Auth, db: Db, request: FastifyRequest): Promise<ResolvedSession> {
  const found = await callAuth(() => auth.api.getSession({ headers: fromNodeHeaders(request.headers) }));
  if (!found) return null;
  const { user, session } = found;
  const impersonatedBy = session.impersonatedBy ? await impersonatingAdmin(db, session.impersonatedBy) : null;
  if (impersonatedBy === undefined) return null;
  return {
    user: { id: user.id, name: user.name, email: user.email, role: user.role ?? "user" },
    session: { id: session.id, expiresAt: session.expiresAt, impersonatedBy },
  };
}

/**
 * Each request's caller, resolved once and kept on the request: a hook that needs the caller before the
 * handler (the Idempotency-Key check) and the request's context share one lookup. A property, not a WeakMap
 * keyed by request: every request added and dropped an entry there, ~1 % of an unread count's CPU (issue AE).
 */
const RESOLVED = Symbol("resolvedSession");
type WithResolved = FastifyRequest & { [RESOLVED]?: NowOrLater<ResolvedSession> };

/**
 * Whether a bearer session may be answered without better-auth: unexpired, and not due for the refresh
 * better-auth alone does. An impersonation session is never refreshed: better-auth gives it an hour, and its
 * refresh (which spares only sessions carrying its "don't remember" cookie, which a bearer caller has not)
 * stretched it to the 7 days of an ordinary session on a bearer caller's first request.
 */
export const answerableSession = (session: SessionInfo, now = Date.now()) =>
  session.expiresAt.getTime() > now && (Boolean(session.impersonatedBy) || !dueForRefresh(session.expiresAt, now));

/**
 * Resolves a request's caller: null when it has no session, or a bad or expired one. With `memory`, the session
 * of a bearer token or session cookie is answered from it while it can vouch for it (server/memory/identity.ts).
 */
export function sessionResolver(auth: Auth, db: Db, memory?: IdentityMemory) {
  // Signed tokens are checked with the secret better-auth signs them with.
  const tokens = sessionTokenReader(auth.options.secret ?? "");
  // The session cookie's name as better-auth's context has it (with `__Secure-` on https), once known.
  let cookieName: string | undefined;
  /**
   * The caller of a request with a token: from memory at once, not as a promise, when it can vouch for the
   * session (every request of a signed-in caller asks; issue AE); from the database or better-auth otherwise.
   */
  function lookUp(request: FastifyRequest): NowOrLater<ResolvedSession> {
    const { authorization, cookie } = request.headers;
    if (!authorization && !cookie) return null;
    // The cookie only without an Authorization header: with one, better-auth's bearer plugin decides which counts.
    if (!authorization && cookieName === undefined) return lookUpCookieOnceNamed(request);
    const token = authorization ? tokens.bearer(authorization) : tokens.cookie(cookie, cookieName as string);
    const remembered = token ? recalled(memory, memory?.sessions, token, "session") : undefined;
    return remembered ?? lookUpStored(request, token);
  }

  /** The first cookie request: the session cookie's name is known once better-auth's context is ready. */
  async function lookUpCookieOnceNamed(request: FastifyRequest): Promise<ResolvedSession> {
    cookieName ??= (await auth.$context).authCookies.sessionToken.name;
    return lookUp(request);
  }

  /** A token memory cannot vouch for: its row, or better-auth's answer when the row alone cannot say. */
  async function lookUpStored(request: FastifyRequest, token: string | null): Promise<ResolvedSession> {
    if (token) {
      const epoch = memory?.sessions.epoch() ?? 0;
      const row = await sessionByToken(db, token);
      if (row) {
        // The admin behind an impersonation session is looked up only for such a session, so the common
        // lookup stays one statement.
        const { id, expiresAt, impersonatedBy: adminId } = row.session;
        const impersonatedBy = adminId === null ? null : await impersonatingAdmin(db, adminId);
        if (impersonatedBy === undefined) return null;
        const resolved = { user: row.user, session: { id, expiresAt, impersonatedBy } };
        if (answerableSession(resolved.session)) {
          memory?.sessions.remember(token, resolved, epoch);
          return resolved;
        }
      }
    }
    return viaBetterAuth(auth, db, request);
  }
  /** The request's caller, or a promise of it while it must be read (callers `await` either). */
  return function resolveSession(request: FastifyRequest): NowOrLater<ResolvedSession> {
    const held = request as WithResolved;
    if (!(RESOLVED in held)) held[RESOLVED] = lookUp(request);
    return held[RESOLVED] as NowOrLater<ResolvedSession>;
  };
}

/**
 * Of these sessions, those that still exist and have not expired: the live streams' check after the
 * database's change feed was interrupted, when `session_ended` announcements may have been missed.
 */
export async function sessionsStillOpen(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(sql`${sessions.id} = any(${textArray(ids)})`, gt(sessions.expiresAt, sql`now()`)));
  return new Set(rows.map((row) => row.id));
}
