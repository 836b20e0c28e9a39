// The REST surface as a table: method, path, the procedure it calls, where its input comes from, and the
// success status. The adapter registers it; the OpenAPI document is generated from it.
export type RestRoute = {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Fastify path, mount point included. */
  path: string;
  /** The tRPC procedure, as `router.procedure`. */
  procedure: string;
  /**
   * Where the procedure's input comes from: the path parameters (`:id` → `id`) plus the JSON body's
   * fields ("body") or the query string's ("query"), or the path parameters alone ("path").
   * Omitted: the procedure takes no input.
   */
  input?: "body" | "query" | "path";
  /** HTTP status of a success; 200 when omitted. */
  status?: 200 | 201;
  summary: string;
};

const RESTRICTION = "/api/admin/restriction";

// Cohort paths come first: they take precedence over /:proId (Fastify prefers static segments anyway).
export const restrictionRoutes: RestRoute[] = [
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts`,
    procedure: "restriction.createCohort",
    input: "body",
    status: 201,
    summary: "Create a rollout cohort (status pending)",
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
    method: "POST",
    path: `${RESTRICTION}/:proId/activate`,
    procedure: "restriction.activatePro",
    input: "path",
    summary: "Switch one pro's restriction on (ungated)",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/:proId/rollback`,
    procedure: "restriction.rollbackPro",
    input: "path",
    summary: "Switch one pro's restriction off",
  },
];

const NOTIFICATIONS = "/api/notifications";

// Static paths (/unread-count, /read-all, /bulk, /subscriptions, /test/*, /vapid-public-key) win over
// /:id: Fastify prefers static segments whatever the order here.
export const notificationRoutes: RestRoute[] = [
  {
    method: "GET",
    path: NOTIFICATIONS,
    procedure: "notifications.list",
    input: "query",
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
    path: `${NOTIFICATIONS}/vapid-public-key`,
    procedure: "notifications.vapidPublicKey",
    summary: "The VAPID public key browsers subscribe with (null when unset)",
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
];

export const restRoutes: RestRoute[] = [...restrictionRoutes, ...notificationRoutes];
