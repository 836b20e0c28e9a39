// The building blocks of every router: procedures by who may call them.
import { t } from "./init.js";
import { adminOnly } from "./middleware/admin.js";
import { authed } from "./middleware/authed.js";
import { fenceMemory } from "./middleware/fence-memory.js";
import { normalizeErrors } from "./middleware/normalize-errors.js";

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Anyone; errors already normalised, and memory fenced after a write (server/memory/fence.ts). */
export const publicProcedure = t.procedure.use(normalizeErrors).use(fenceMemory);
/** A signed-in user: ctx.user and ctx.session are set. */
export const authedProcedure = publicProcedure.use(authed);
/** A signed-in platform admin. */
export const adminProcedure = authedProcedure.use(adminOnly);

/** Per-procedure limits, added with `.use(rateLimited("testPush"))`. */
export { rateLimited } from "./middleware/rate-limit.js";
