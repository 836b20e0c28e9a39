import { TooManyRequestsError } from "../../errors/errors.js";
import { refuseInKeyedTransaction } from "../../http/keyed-scope.js";
import type { ProcedureRateLimits } from "../../http/rate-limit.js";
import { t } from "../init.js";

/**
 * Counts the call against the context's limit for `operation`, per caller (user id), and refuses it with
 * 429 once over: the same for calls through /trpc and through the REST adapter.
 */
export const rateLimited = (operation: keyof ProcedureRateLimits) =>
  t.middleware(async ({ ctx, next }) => {
    // On PostgreSQL the count takes a pool connection of its own (server/http/keyed-scope.ts).
    if (ctx.rateLimits?.[operation]) refuseInKeyedTransaction(`The ${operation} rate limit`);
    const verdict = await ctx.rateLimits?.[operation]?.(ctx.user?.id ?? "anonymous");
    if (verdict?.limited) throw new TooManyRequestsError(verdict.retryAfterSeconds);
    return next();
  });
