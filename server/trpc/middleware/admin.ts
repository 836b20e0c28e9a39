import { AppError } from "../../errors/errors.js";
import { t } from "../init.js";
import { narrowedToCaller, requireCaller } from "./authed.js";

/**
 * Requires a signed-in platform admin (role `admin`): 401 without a caller, 403 for anyone else. Does
 * authed's check too, in the same middleware: tRPC copies a call's options for each middleware (issue AE).
 */
export const adminCaller = t.middleware(({ ctx, next }) => {
  requireCaller(ctx);
  if (ctx.user.role !== "admin") throw new AppError("FORBIDDEN", "Platform admin role required");
  return next({ ctx: narrowedToCaller });
});
