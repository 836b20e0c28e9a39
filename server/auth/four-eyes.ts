// Four-eyes over better-auth's admin plugin (docs/api.md#four-eyes-approval): with APPROVALS=required no admin
// makes another admin, or takes over another admin's account, on their own word.
//
// - set-role to admin answers 202 `{changeRequest}`: a grant-admin request a second admin approves
//   (server/auth/admin-grants.ts applies it); the role is unchanged until then.
// - create-user with an admin role makes an ordinary user, then files the same request: 202 `{user,
//   changeRequest}`.
// - update-user cannot carry an admin role (403): set-role is the way, through approval.
// - set-user-password and impersonate-user on another admin: 403.
// Revoking the role, banning, revoking sessions and removing go ahead at once, audited (admin-plugin.ts).
//
// A plugin of `before` hooks (plus one `after` for create-user): better-auth's supported way to act before
// an endpoint, with the caller's session read as the endpoint would read it. A caller who is not an admin
// passes through, to be refused by the endpoint itself; so does a server-side call without a session (the
// start-up admins, a separate trust domain: deployment configuration).
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthMiddleware, isAPIError } from "better-auth/api";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { users } from "../../db/schema/index.js";
import { impersonatorOf } from "../audit/impersonator.js";
import type { AuditSource } from "../audit/record.js";
import { AppError } from "../errors/errors.js";
import { type ChangeRequestView, fileChangeRequest } from "../routers/restriction/change-requests.js";
import { bearerSessionToken } from "./session.js";

/** better-auth keeps several roles as one comma-separated string; any of them may be admin. */
export const includesAdmin = (role: unknown): boolean =>
  (Array.isArray(role) ? role : [role]).some((r) => typeof r === "string" && r.split(",").some((one) => one.trim() === "admin"));

type Body = Record<string, unknown>;
type Caller = { user: { id: string; email: string; role?: string | null }; session: { impersonatedBy?: string | null } };
type HookCtx = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/**
 * The caller when it is an admin (else null: the endpoint refuses them itself). Read from the request as the
 * endpoint will: a hook sees the headers as sent, before the bearer plugin's hook turns a bearer token into
 * the session cookie, so both are read here.
 */
async function adminCaller(ctx: HookCtx): Promise<Caller | null> {
  const token =
    bearerSessionToken(ctx.headers?.get("authorization") ?? undefined, ctx.context.secret) ||
    (await ctx.getSignedCookie(ctx.context.authCookies.sessionToken.name, ctx.context.secret));
  if (!token) return null;
  const found = (await ctx.context.internalAdapter.findSession(token)) as (Caller & { session: { expiresAt: Date } }) | null;
  if (!found || found.session.expiresAt.getTime() <= Date.now()) return null;
  return includesAdmin(found.user.role) ? found : null;
}

async function userById(db: Db, id: unknown) {
  if (typeof id !== "string") return undefined;
  const [user] = await db.select({ id: users.id, email: users.email, role: users.role }).from(users).where(eq(users.id, id));
  return user;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** The grant-admin request, filed in a transaction of its own and audited as the caller's. */
async function fileGrant(db: Db, ctx: HookCtx, caller: Caller, user: { id: string; email: string }): Promise<ChangeRequestView> {
  const source: AuditSource = {
    actor: { id: caller.user.id, email: caller.user.email },
    impersonatedBy: await impersonatorOf(db, caller.session.impersonatedBy),
    requestId: ctx.headers?.get("x-request-id") ?? null,
  };
  try {
    return await db.transaction((tx) =>
      fileChangeRequest(tx, source, {
        target: { userId: user.id, userEmail: user.email, action: "grant-admin" },
        reason: null,
        preview: null,
      }),
    );
  } catch (err) {
    if (err instanceof AppError && err.kind === "CONFLICT") throw new APIError("CONFLICT", { message: err.message, code: "CONFLICT" });
    throw err;
  }
}

const forbidden = (message: string) => new APIError("FORBIDDEN", { message, code: "FORBIDDEN" });

/** The better-auth plugin; it does nothing unless approvals are required. */
export function fourEyesAdminActs(db: Db, approvals: "off" | "required") {
  const on = (path: string) => (ctx: { path?: string }) => approvals === "required" && ctx.path === path;
  /** create-user calls whose admin role was held back for approval (better-auth's context of that call). */
  const heldBack = new WeakSet<object>();

  return {
    id: "four-eyes-admin-acts",
    hooks: {
      before: [
        {
          matcher: on("/admin/set-role"),
          handler: createAuthMiddleware(async (ctx) => {
            const body = (ctx.body ?? {}) as Body;
            if (!includesAdmin(body.role)) return;
            const caller = await adminCaller(ctx);
            const user = caller && (await userById(db, body.userId));
            if (!caller || !user || includesAdmin(user.role)) return;
            return json(202, { changeRequest: await fileGrant(db, ctx, caller, user) });
          }),
        },
        {
          matcher: on("/admin/create-user"),
          handler: createAuthMiddleware(async (ctx) => {
            const body = (ctx.body ?? {}) as Body;
            const data = (body.data ?? {}) as Body;
            if (!includesAdmin(body.role ?? data.role)) return;
            if (!(await adminCaller(ctx))) return;
            heldBack.add(ctx.context);
            // An ordinary user now; the role follows the approval.
            return { context: { body: { ...body, role: "user", ...(body.data ? { data: { ...data, role: "user" } } : {}) } } };
          }),
        },
        {
          matcher: on("/admin/update-user"),
          handler: createAuthMiddleware(async (ctx) => {
            const data = ((ctx.body ?? {}) as Body).data as Body | undefined;
            if (!data || !includesAdmin(data.role) || !(await adminCaller(ctx))) return;
            throw forbidden("Approval required: the admin role is granted through set-role and a second admin's approval");
          }),
        },
        {
          matcher: (ctx) => on("/admin/set-user-password")(ctx) || on("/admin/impersonate-user")(ctx),
          handler: createAuthMiddleware(async (ctx) => {
            const caller = await adminCaller(ctx);
            const target = caller && (await userById(db, ((ctx.body ?? {}) as Body).userId));
            if (!caller || !target || target.id === caller.user.id || !includesAdmin(target.role)) return;
            throw forbidden(
              ctx.path === "/admin/set-user-password"
                ? "While approvals are required, an admin cannot set another admin's password"
                : "While approvals are required, an admin cannot impersonate another admin",
            );
          }),
        },
      ],
      after: [
        {
          matcher: on("/admin/create-user"),
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned as { user?: { id: string; email: string } } | undefined;
            if (!heldBack.has(ctx.context) || !returned || isAPIError(returned) || !returned.user) return;
            const caller = await adminCaller(ctx);
            if (!caller) return;
            const changeRequest = await fileGrant(db, ctx, caller, returned.user);
            return json(202, { user: returned.user, changeRequest });
          }),
        },
      ],
    },
  } satisfies BetterAuthPlugin;
}
