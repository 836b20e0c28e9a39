import type { SessionInfo, SessionUser } from "../auth/session.js";
import type { Context } from "../context.js";

/** The context behind authedProcedure/adminProcedure: the caller is known. */
export type AuthedContext = Context & { user: SessionUser; session: SessionInfo };

/** Every handler is a plain function of its context and parsed input. */
export type HandlerArgs<I = undefined> = { ctx: AuthedContext; input: I };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids of cohorts and notifications are UUIDs; anything else cannot exist. */
export const isUuid = (value: string) => UUID.test(value);
