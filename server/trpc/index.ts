// The building blocks of every router: procedures by who may call them.
import { t } from "./init.js";
import { adminCaller } from "./middleware/admin.js";
import { authed } from "./middleware/authed.js";
import { everyCall } from "./middleware/every-call.js";

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Anyone; errors already normalised, and memory fenced after a write (server/memory/fence.ts). */
export const publicProcedure = t.procedure.use(everyCall);
/** A signed-in user: ctx.user and ctx.session are set. */
export const authedProcedure = publicProcedure.use(authed);
/** A signed-in platform admin. */
export const adminProcedure = publicProcedure.use(adminCaller);

/** Per-procedure limits, added with `.use(rateLimited("testPush"))`. */
export { rateLimited } from "./middleware/rate-limit.js";
