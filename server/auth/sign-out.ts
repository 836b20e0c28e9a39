// Sign-out deletes the session itself before better-auth runs. better-auth's sign-out logs a failed delete
// and answers success all the same, so during a database outage a "signed out" session kept working (found
// by the chaos soak). Here the delete is an ordinary bounded statement: if it fails, the request fails
// (503) and nothing was written; once it succeeds, better-auth's own delete finds nothing left to do.
import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import type { Db } from "../../db/client.js";
import { sessions } from "../../db/schema/index.js";
import { normalAuthPath } from "../http/auth-path.js";
import { addRouteHook, isAuthRoute } from "../http/route-hooks.js";
import { wroteMemory } from "../memory/fence.js";
import type { Auth } from "./better-auth.js";
import { sessionTokenHash } from "./hashed-session-tokens.js";
import { bearerSessionToken } from "./session.js";

const SIGN_OUT_PATH = "/api/auth/sign-out";
/** better-auth's session cookie, with or without the __Secure- prefix it takes on https. */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?better-auth\.session_token=([^;]*)/;

/** The session token of the request: the bearer token, or the signed session cookie (only signed). */
function sessionToken(headers: { authorization?: string; cookie?: string }, secret: string): string | null {
  const bearer = bearerSessionToken(headers.authorization, secret);
  if (bearer) return bearer;
  const cookie = SESSION_COOKIE.exec(headers.cookie ?? "")?.[1];
  return cookie?.includes(".") ? bearerSessionToken(`Bearer ${cookie}`, secret) : null;
}

export function registerSignOut(app: FastifyInstance, auth: Auth, db: Db): void {
  const secret = auth.options.secret ?? "";
  addRouteHook(app, "preHandler", isAuthRoute, async (request) => {
    if (request.method !== "POST" || normalAuthPath(request.url)?.toLowerCase() !== SIGN_OUT_PATH) return;
    const token = sessionToken(request.headers, secret);
    if (!token) return;
    await db.delete(sessions).where(eq(sessions.token, sessionTokenHash(token)));
    // This instance's memory refuses the session from the next request on, as after any write of its own.
    wroteMemory();
  });
}
