// What the audit trail records: its actions and target types. A module of constants only, free of any
// import, so the operator console bundles the same lists for its filters (console/src/views/auditFilters.ts)
// instead of a copy (test/unit/console-layers.test.ts allows the console such modules only).

export const auditActions = [
  "cohort.create",
  "cohort.check_gates",
  "cohort.activate",
  "cohort.rollback",
  "pro.activate",
  "pro.rollback",
  "notification.test_in_app",
  "notification.test_push",
  "subscriptions.clear",
  "admin.bootstrap",
  // better-auth's admin plugin (/api/auth/admin/*), recorded by server/audit/admin-plugin.ts.
  "user.create",
  "user.update",
  "user.set_role",
  "user.ban",
  "user.unban",
  "user.set_password",
  "user.revoke_sessions",
  "user.remove",
  "user.impersonate",
  "user.stop_impersonating",
  // Service API keys (server/routers/api-keys/).
  "apikey.create",
  "apikey.revoke",
  // Four-eyes approval (server/restriction/change-requests.ts).
  "change_request.create",
  "change_request.approve",
  "change_request.reject",
  "change_request.cancel",
] as const;
export type AuditAction = (typeof auditActions)[number];

export const auditTargetTypes = ["cohort", "pro", "user", "apikey", "change_request"] as const;
export type AuditTargetType = (typeof auditTargetTypes)[number];
