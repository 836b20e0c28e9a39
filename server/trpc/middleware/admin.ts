import type { Context } from "../../context.js";
import { AppError } from "../../errors/errors.js";
import { requireCaller } from "./authed.js";

/**
 * Throws 401 without a caller and 403 for anyone but a platform admin (role `admin`): the check of
 * adminProcedure (server/trpc/index.ts).
 */
export function requireAdmin(ctx: Context): void {
  requireCaller(ctx);
  if (ctx.user.role !== "admin") throw new AppError("FORBIDDEN", "Platform admin role required");
}
