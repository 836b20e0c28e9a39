import { AppError } from "../../errors/errors.js";
import { t } from "../init.js";

/** Requires a signed-in caller; narrows ctx.user and ctx.session to non-null. */
export const authed = t.middleware(({ ctx, next }) => {
  if (!ctx.user || !ctx.session) throw new AppError("UNAUTHORIZED", "Authentication required");
  return next({ ctx: { user: ctx.user, session: ctx.session } });
});
