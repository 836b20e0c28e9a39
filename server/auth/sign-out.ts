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
import { sessionTokenReader } from "./session-token.js";

const SIGN_OUT_PATH = "/api/auth/sign-out";

export function registerSignOut(app: FastifyInstance, auth: Auth, db: Db): void {
  const tokens = sessionTokenReader(auth.options.secret ?? "");
  addRouteHook(app, "preHandler", isAuthRoute, async (request) => {
    if (request.method !== "POST" || normalAuthPath(request.url)?.toLowerCase() !== SIGN_OUT_PATH) return;
    // The bearer token, or the signed session cookie better-auth would read (only signed).
    const { authorization, cookie } = request.headers;
    const token = tokens.bearer(authorization) ?? tokens.cookie(cookie, (await auth.$context).authCookies.sessionToken.name);
    if (!token) return;
    await db.delete(sessions).where(eq(sessions.token, sessionTokenHash(token)));
    // This instance's memory refuses the session from the next request on, as after any write of its own.
    wroteMemory();
  });
}
