// Text in a body sent to better-auth (/api/auth/*) that PostgreSQL cannot store as sent: a NUL failed the
// write with a 500 (update-user, revoke-session, reset-password; sign-up on PostgreSQL) and a lone
// surrogate was stored as U+FFFD (issue X). better-auth's own validation lets both through, so the door
// refuses the body before better-auth sees it, as every procedure's input refuses such text.
import type { FastifyInstance } from "fastify";
import { AppError } from "../errors/errors.js";
import { sendError } from "../errors/rest.js";
import { normalAuthPath } from "./auth-path.js";
import { firstUnstorableText } from "./json-text.js";
import { addRouteHook, isAuthRoute } from "./route-hooks.js";

export function registerAuthTextGuard(app: FastifyInstance): void {
  // preValidation: the body is parsed by then, and no limit has counted the request yet.
  addRouteHook(app, "preValidation", isAuthRoute, async (request, reply) => {
    if (request.body === undefined || !normalAuthPath(request.url)) return;
    const found = firstUnstorableText(request.body);
    if (!found) return;
    const details = [{ field: found.path.join("."), message: found.message }];
    return sendError(reply, new AppError("VALIDATION_ERROR", `Invalid text: ${found.message}`, details));
  });
}
