// The account procedures' handlers: each a plain function of {ctx, input} that names who is acting and
// calls the domain (server/accounts/).
import type { z } from "zod";
import * as accounts from "../../accounts/accounts.js";
import type { Acting } from "../../accounts/acting.js";
import { stopImpersonating as endImpersonation, impersonate as startImpersonation } from "../../accounts/impersonation.js";
import { auditSource } from "../../audit/record.js";
import type { AuthedContext, HandlerArgs } from "../../context.js";
import type { banUserInput, createUserInput, listUsersInput, setPasswordInput, setRoleInput, userIdInput } from "./schemas.js";

const acting = (ctx: AuthedContext): Acting => ({ source: auditSource(ctx), sessionId: ctx.session.id, approvals: ctx.approvals ?? "off" });

export const listUsers = ({ ctx, input }: HandlerArgs<z.infer<typeof listUsersInput>>) => accounts.listUsers(ctx.db, input);
export const createUser = ({ ctx, input }: HandlerArgs<z.infer<typeof createUserInput>>) => accounts.createUser(ctx.db, acting(ctx), input);
export const setRole = ({ ctx, input }: HandlerArgs<z.infer<typeof setRoleInput>>) => accounts.setRole(ctx.db, acting(ctx), input);
export const setPassword = ({ ctx, input }: HandlerArgs<z.infer<typeof setPasswordInput>>) =>
  accounts.setPassword(ctx.db, acting(ctx), input);
export const banUser = ({ ctx, input }: HandlerArgs<z.infer<typeof banUserInput>>) => accounts.banUser(ctx.db, acting(ctx), input);
export const unbanUser = ({ ctx, input }: HandlerArgs<z.infer<typeof userIdInput>>) => accounts.unbanUser(ctx.db, acting(ctx), input);
export const revokeSessions = ({ ctx, input }: HandlerArgs<z.infer<typeof userIdInput>>) =>
  accounts.revokeSessions(ctx.db, acting(ctx), input);
export const removeUser = ({ ctx, input }: HandlerArgs<z.infer<typeof userIdInput>>) => accounts.removeUser(ctx.db, acting(ctx), input);
export const impersonate = ({ ctx, input }: HandlerArgs<z.infer<typeof userIdInput>>) =>
  startImpersonation(ctx.db, { ...acting(ctx), userAgent: ctx.userAgent }, input);
export const stopImpersonating = ({ ctx }: HandlerArgs) =>
  endImpersonation(ctx.db, {
    user: ctx.user,
    sessionId: ctx.session.id,
    impersonatedBy: ctx.session.impersonatedBy,
    requestId: ctx.requestId,
  });
