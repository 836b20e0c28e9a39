import { AppError } from "../../errors/errors.js";
import { t } from "../init.js";

/** Requires a platform admin (role `admin`); run after `authed`. */
export const adminOnly = t.middleware(({ ctx, next }) => {
  if (ctx.user?.role !== "admin") throw new AppError("FORBIDDEN", "Platform admin role required");
  return next();
});
