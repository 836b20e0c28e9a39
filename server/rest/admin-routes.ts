// The REST rows of the admin tools beside the restriction: the audit log, API keys, deliveries and accounts (routes.ts).
import type { RestRoute } from "./route-types.js";

export const auditRoutes = [
  {
    method: "GET",
    path: "/api/admin/audit",
    procedure: "audit.list",
    input: "query",
    query: {
      action: "text",
      targetType: "text",
      targetId: "text",
      actorId: "text",
      actorEmail: "text",
      proId: "text",
      since: "text",
      until: "text",
      limit: "strict-number",
      cursor: "text",
    },
    summary: "The audit log of admin changes, newest first, filtered and paged by cursor",
  },
  {
    method: "GET",
    path: "/api/admin/audit/checkpoint",
    procedure: "audit.checkpoint",
    summary: "The audit log's newest signed checkpoint (C2SP signed note)",
  },
  {
    method: "GET",
    path: "/api/admin/audit/proof/inclusion",
    procedure: "audit.inclusionProof",
    input: "query",
    query: { leafIndex: "strict-number", treeSize: "strict-number" },
    summary: "The RFC 6962 inclusion proof of a leaf in a tree of the audit log",
  },
  {
    method: "GET",
    path: "/api/admin/audit/proof/consistency",
    procedure: "audit.consistencyProof",
    input: "query",
    query: { from: "strict-number", to: "strict-number" },
    summary: "The RFC 6962 consistency proof between two trees of the audit log",
  },
] satisfies RestRoute[];

const API_KEYS = "/api/admin/api-keys";

export const apiKeyRoutes = [
  {
    method: "POST",
    path: API_KEYS,
    procedure: "apiKeys.create",
    input: "body",
    status: 201,
    summary: "Create a service API key; its secret is in this answer only",
  },
  { method: "GET", path: API_KEYS, procedure: "apiKeys.list", summary: "List the service API keys, newest first (never their secrets)" },
  {
    method: "DELETE",
    path: `${API_KEYS}/:id`,
    procedure: "apiKeys.revoke",
    input: "path",
    summary: "Revoke a service API key at once",
  },
] satisfies RestRoute[];

export const deliveryRoutes = [
  {
    method: "GET",
    path: "/api/admin/deliveries",
    procedure: "deliveries.recent",
    input: "query",
    query: { producer: "text", userId: "text", userEmail: "text", limit: "strict-number" },
    summary: "Producers' recent events and their push deliveries, newest first",
  },
  {
    method: "GET",
    path: "/api/admin/settings",
    procedure: "settings.get",
    summary: "The modes the service runs in (approvals, push, sign-up), for the console",
  },
] satisfies RestRoute[];

const USERS = "/api/admin/users";

/** Account administration (docs/api.md#accounts), the service's own: better-auth's /api/auth/admin/* answer 404. */
export const userRoutes = [
  {
    method: "GET",
    path: USERS,
    procedure: "users.list",
    input: "query",
    query: { search: "text", limit: "strict-number", offset: "strict-number" },
    summary: "List users by e-mail address, searched by e-mail or name",
  },
  {
    method: "POST",
    path: USERS,
    procedure: "users.create",
    input: "body",
    status: 201,
    acceptedWhenRequested: true,
    summary: "Make an account; an admin role while approvals are required: 202, the account made as user and a grant-admin request",
  },
  {
    method: "POST",
    path: `${USERS}/:id/role`,
    procedure: "users.setRole",
    input: "body",
    acceptedWhenRequested: true,
    summary:
      "Grant or take back the admin role (ends the user's sessions); granting while approvals are required: 202, a grant-admin request",
  },
  {
    method: "POST",
    path: `${USERS}/:id/password`,
    procedure: "users.setPassword",
    input: "body",
    summary: "Set a user's password and end their sessions; another admin's: 403",
  },
  {
    method: "POST",
    path: `${USERS}/:id/ban`,
    procedure: "users.ban",
    input: "body",
    summary: "Ban a user, for some days or until unbanned: their sessions end and sign-in is refused",
  },
  { method: "POST", path: `${USERS}/:id/unban`, procedure: "users.unban", input: "path", summary: "Lift a user's ban" },
  {
    method: "POST",
    path: `${USERS}/:id/revoke-sessions`,
    procedure: "users.revokeSessions",
    input: "path",
    summary: "End every session of a user, impersonation sessions of them and by them included",
  },
  {
    method: "DELETE",
    path: `${USERS}/:id`,
    procedure: "users.remove",
    input: "path",
    summary: "Remove a user; the last admin cannot be removed (409)",
  },
  {
    method: "POST",
    path: `${USERS}/:id/impersonate`,
    procedure: "users.impersonate",
    input: "path",
    summary: "Open an impersonation session of an ordinary user, for an hour at most; another admin: 403",
  },
  {
    method: "POST",
    path: "/api/admin/impersonation/stop",
    procedure: "users.stopImpersonating",
    summary: "End the caller's impersonation session (bearer or cookie)",
  },
] satisfies RestRoute[];
