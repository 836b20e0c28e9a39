// The REST surface as a table: method, path, the procedure it calls, where its input comes from, and the
// success status. The adapter registers it; the OpenAPI document is generated from it. Each row is checked
// against the procedure it names: the procedure path must be one of the router's, a query must be read with
// GET and a mutation with another method, a procedure that takes input must say where it comes from, a
// path-only input must be named by the URL's parameters, and a query string must say how to read every
// field of the procedure's input.
import type { IsQuery, ProcedureInput, ProcedurePath } from "../routers/index.js";

type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** The query field that reads a value of type T: "number" or "strict-number" for a number, "text" for a string. */
type QueryFieldFor<T> = [Exclude<T, undefined>] extends [number]
  ? "number" | "strict-number"
  : [Exclude<T, undefined>] extends [string]
    ? "text"
    : never;

/** How to read each field of an input from the query string: every field, each by its type. */
type QueryFields<I> = { [K in keyof I & string]-?: QueryFieldFor<I[K]> };

/** A path with a `:key` parameter for every one of the keys. */
type PathNaming<K extends string> = (K extends string ? (path: `${string}/:${K}` | `${string}/:${K}/${string}`) => void : never) extends (
  path: infer Every,
) => void
  ? Every
  : never;

/**
 * Where the procedure's input comes from: the path parameters (`:id` → `id`) plus the JSON body's fields
 * ("body") or the query string's ("query", read as `query` says), or the path parameters alone ("path",
 * so the path names every field). Omitted exactly when the procedure takes no input.
 */
type InputSource<P extends ProcedurePath, I = Exclude<ProcedureInput<P>, void | undefined>> = [ProcedureInput<P>] extends [void]
  ? { input?: never; query?: never }
  :
      | { input: "body"; query?: never }
      | { input: "path"; path: PathNaming<keyof I & string>; query?: never }
      | { input: "query"; query: QueryFields<I> };

type RouteTo<P extends ProcedurePath> = {
  method: IsQuery<P> extends true ? "GET" : Exclude<Method, "GET">;
  /** Fastify path, mount point included. */
  path: string;
  /** The tRPC procedure, as `router.procedure`. */
  procedure: P;
  /** The OpenAPI operationId, where a second route calls the same procedure; the procedure otherwise. */
  operationId?: string;
  /** HTTP status of a success; 200 when omitted. */
  status?: 200 | 201;
  /**
   * A success that filed a change request for a second admin instead of acting (the answer carries a
   * `changeRequest`) answers 202 Accepted.
   */
  acceptedWhenRequested?: true;
  summary: string;
} & InputSource<P>;

/** A row of the table: one variant per procedure, so each row is checked against the procedure it names. */
export type RestRoute = { [P in ProcedurePath]: RouteTo<P> }[ProcedurePath];

const RESTRICTION = "/api/admin/restriction";
const PRO_RESTRICTION = "/api/admin/pro-restriction";

// Cohort paths come first: they take precedence over /:proId (Fastify prefers static segments anyway).
export const restrictionRoutes = [
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts`,
    procedure: "restriction.createCohort",
    input: "body",
    status: 201,
    summary: "Create a rollout cohort (status pending)",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts/preview`,
    procedure: "restriction.previewNewCohort",
    input: "body",
    summary: "Preview a new cohort before creating it: its number taken, unknown pros, pros already in an active cohort (writes nothing)",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/cohorts`,
    procedure: "restriction.listCohorts",
    summary: "List cohorts by cohort number",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts/:id/check-gates`,
    procedure: "restriction.checkGates",
    input: "body",
    status: 201,
    summary: "Record a prerequisite gate check for a cohort",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/cohorts/:id/checks`,
    procedure: "restriction.listGateChecks",
    input: "path",
    summary: "List a cohort's gate checks, newest first",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/cohorts/:id/preview`,
    procedure: "restriction.previewCohort",
    input: "query",
    query: { id: "text", action: "text" },
    summary: "Preview what activating or rolling back a cohort would do to each pro's flag (writes nothing)",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/cohorts/:id/coverage`,
    procedure: "restriction.cohortCoverage",
    input: "path",
    summary: "Which of a cohort's pros are not restricted now, and the change that switched each off",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts/:id/activate`,
    procedure: "restriction.activateCohort",
    input: "path",
    summary: "Activate a cohort whose latest gate check passed",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts/:id/rollback`,
    procedure: "restriction.rollbackCohort",
    input: "body",
    summary: "Roll a cohort back, with an optional reason",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts/:id/change-requests`,
    procedure: "restriction.createChangeRequest",
    input: "body",
    status: 201,
    summary: "Ask a second admin to activate or roll back a cohort (four-eyes approval)",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/change-requests`,
    procedure: "restriction.listChangeRequests",
    input: "query",
    query: { status: "text", cohortId: "text" },
    summary: "List change requests, newest first",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/change-requests/:id`,
    procedure: "restriction.getChangeRequest",
    input: "path",
    summary: "Read one change request",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/change-requests/:id/approve`,
    procedure: "restriction.approveChangeRequest",
    input: "body",
    summary: "Approve a change request: a second admin applies it, if its impact is still the one reviewed",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/change-requests/:id/reject`,
    procedure: "restriction.rejectChangeRequest",
    input: "body",
    summary: "Reject a change request with a comment",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/change-requests/:id/cancel`,
    procedure: "restriction.cancelChangeRequest",
    input: "path",
    summary: "Cancel your own pending change request",
  },
  {
    method: "GET",
    path: RESTRICTION,
    procedure: "restriction.listActive",
    summary: "List pros whose restriction is active",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/:proId`,
    procedure: "restriction.getPro",
    input: "path",
    summary: "Read one pro's restriction status",
  },
  {
    method: "GET",
    path: `${RESTRICTION}/:proId/history`,
    procedure: "restriction.proHistory",
    input: "path",
    summary: "Every change of one pro's flag, per pro or by a cohort, newest first, with who made it",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/:proId/activate`,
    procedure: "restriction.activatePro",
    input: "path",
    summary: "Switch one pro's restriction on (ungated; with APPROVALS=required, 409: ask through a change request)",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/:proId/change-requests`,
    procedure: "restriction.createProChangeRequest",
    input: "body",
    status: 201,
    summary: "Ask a second admin to switch one pro's restriction on (four-eyes approval)",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/:proId/rollback`,
    procedure: "restriction.rollbackPro",
    input: "path",
    summary: "Switch one pro's restriction off",
  },
  // The same five acts with the id in the query (or body), for any id (issue AD.9): a pro named `cohorts` or
  // `change-requests` cannot be a :proId segment, where those words are the cohorts' and change requests'
  // own paths. A sibling of /restriction, not a segment below it: a new word there would shadow a pro too.
  {
    method: "GET",
    path: PRO_RESTRICTION,
    procedure: "restriction.getPro",
    operationId: "restriction.getPro.byQuery",
    input: "query",
    query: { proId: "text" },
    summary: "Read one pro's restriction status, any id (`cohorts` too) in the query",
  },
  {
    method: "GET",
    path: `${PRO_RESTRICTION}/history`,
    procedure: "restriction.proHistory",
    operationId: "restriction.proHistory.byQuery",
    input: "query",
    query: { proId: "text" },
    summary: "One pro's flag history, any id in the query",
  },
  {
    method: "POST",
    path: `${PRO_RESTRICTION}/activate`,
    procedure: "restriction.activatePro",
    operationId: "restriction.activatePro.byQuery",
    input: "query",
    query: { proId: "text" },
    summary: "Switch one pro's restriction on, any id in the query (with APPROVALS=required, 409)",
  },
  {
    method: "POST",
    path: `${PRO_RESTRICTION}/rollback`,
    procedure: "restriction.rollbackPro",
    operationId: "restriction.rollbackPro.byQuery",
    input: "query",
    query: { proId: "text" },
    summary: "Switch one pro's restriction off, any id in the query",
  },
  {
    method: "POST",
    path: `${PRO_RESTRICTION}/change-requests`,
    procedure: "restriction.createProChangeRequest",
    operationId: "restriction.createProChangeRequest.byBody",
    input: "body",
    status: 201,
    summary: "Ask a second admin to switch one pro's restriction on, any id in the body",
  },
] satisfies RestRoute[];

const NOTIFICATIONS = "/api/notifications";

// Static paths (/unread-count, /read-all, /bulk, /subscriptions, /test/*, /vapid-public-key, /app) win over
// /:id: Fastify prefers static segments whatever the order here.
export const notificationRoutes = [
  {
    method: "GET",
    path: NOTIFICATIONS,
    procedure: "notifications.list",
    input: "query",
    query: { category: "text", search: "text", page: "number", limit: "number" },
    summary: "List the caller's notifications, newest first (category, search, page, limit)",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/unread-count`,
    procedure: "notifications.unreadCount",
    summary: "Count the caller's unread notifications",
  },
  {
    method: "PATCH",
    path: `${NOTIFICATIONS}/read-all`,
    procedure: "notifications.markAllRead",
    input: "query",
    query: { category: "text" },
    summary: "Mark all the caller's notifications read, optionally of one category",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/bulk`,
    procedure: "notifications.removeMany",
    input: "body",
    summary: "Soft-delete several of the caller's notifications by id",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/subscriptions`,
    procedure: "notifications.listSubscriptions",
    summary: "List the caller's active push subscriptions",
  },
  {
    method: "POST",
    path: `${NOTIFICATIONS}/subscriptions`,
    procedure: "notifications.subscribe",
    input: "body",
    summary: "Register a push subscription (upsert by endpoint)",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/subscriptions`,
    procedure: "notifications.unsubscribe",
    input: "body",
    summary: "Deactivate the caller's push subscription with this endpoint",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/preferences`,
    procedure: "notifications.getPreferences",
    summary: "The caller's preferences: per category, in-app and push (all on until changed)",
  },
  {
    method: "PATCH",
    path: `${NOTIFICATIONS}/preferences`,
    procedure: "notifications.updatePreferences",
    input: "body",
    summary: "Change any part of the caller's preferences; answers them whole",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/vapid-public-key`,
    procedure: "notifications.vapidPublicKey",
    summary: "The VAPID public key browsers subscribe with (null when unset)",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/app`,
    procedure: "notifications.app",
    summary: "The platform app's origin (APP_BASE_URL) a notification's path is relative to (null when unset)",
  },
  {
    method: "POST",
    path: `${NOTIFICATIONS}/test/in-app`,
    procedure: "notifications.testInApp",
    input: "body",
    summary: "Admin: create an in-app notification for a user",
  },
  {
    method: "POST",
    path: `${NOTIFICATIONS}/test/push`,
    procedure: "notifications.testPush",
    input: "body",
    summary: "Admin: send a push message to every active subscription of a user",
  },
  {
    method: "GET",
    path: `${NOTIFICATIONS}/test/subscriptions`,
    procedure: "notifications.testListSubscriptions",
    summary: "Admin: list every user's push subscriptions",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/test/subscriptions`,
    procedure: "notifications.testClearSubscriptions",
    summary: "Admin: deactivate all of the caller's own push subscriptions",
  },
  {
    method: "PATCH",
    path: `${NOTIFICATIONS}/:id/read`,
    procedure: "notifications.markRead",
    input: "path",
    summary: "Mark one of the caller's notifications read",
  },
  {
    method: "DELETE",
    path: `${NOTIFICATIONS}/:id`,
    procedure: "notifications.remove",
    input: "path",
    summary: "Soft-delete one of the caller's notifications",
  },
] satisfies RestRoute[];

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

export const restRoutes: readonly RestRoute[] = [
  ...restrictionRoutes,
  ...notificationRoutes,
  ...auditRoutes,
  ...apiKeyRoutes,
  ...deliveryRoutes,
  ...userRoutes,
];
