// The context of one HTTP request, for both doors: the caller resolved from its bearer token or cookie.
import type { FastifyRequest } from "fastify";
import type { Auth } from "./auth/better-auth.js";
import { sessionResolver } from "./auth/session.js";
import { type Context, createContextInner, type Services } from "./context.js";
import { andThen, type NowOrLater } from "./http/now-or-later.js";
import type { IdentityMemory } from "./memory/identity.js";

/**
 * The context of one HTTP request: the session from its bearer token or cookie, from `identity` (this
 * instance's memory) while it can vouch for it.
 */
export function contextFactory(services: Services, auth: Auth, identity?: IdentityMemory) {
  const resolveSession = sessionResolver(auth, services.db, identity);
  /** At once when memory knows the caller (callers `await` either). */
  return function createContext(request: FastifyRequest): NowOrLater<Context> {
    return andThen(resolveSession(request), (resolved) =>
      createContextInner(services, {
        user: resolved?.user ?? null,
        session: resolved?.session ?? null,
        userAgent: request.headers["user-agent"] ?? null,
        requestId: request.id,
      }),
    );
  };
}
