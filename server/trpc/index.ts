// The building blocks of every router: procedures by who may call them.
import { t } from "./init.js";
import { requireAdmin } from "./middleware/admin.js";
import { requireCaller } from "./middleware/authed.js";
import { everyCall, everyCallOf } from "./middleware/every-call.js";

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Anyone; errors already normalised, and memory fenced after a write (server/memory/fence.ts). */
export const publicProcedure = t.procedure.use(everyCall);
// The signed-in procedures check their caller in every-call's own middleware: one tRPC middleware a call, not two.
/** A signed-in user: ctx.user and ctx.session are set. */
export const authedProcedure = t.procedure.use(everyCallOf(requireCaller));
/** A signed-in platform admin. */
export const adminProcedure = t.procedure.use(everyCallOf(requireAdmin));

/** Per-procedure limits, added with `.use(rateLimited("testPush"))`. */
export { rateLimited } from "./middleware/rate-limit.js";
