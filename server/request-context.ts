// The context of one HTTP request, for both doors: the caller resolved from its bearer token or cookie.
import type { FastifyRequest } from "fastify";
import type { Auth } from "./auth/better-auth.js";
import { sessionResolver } from "./auth/session.js";
import { type Context, createContextInner, type Services } from "./context.js";
import type { IdentityMemory } from "./memory/identity.js";

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
