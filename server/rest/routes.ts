// The REST surface as a table: method, path, the procedure it calls, where its input comes from, and the
// success status. The adapter registers it; the OpenAPI document is generated from it. Each row is checked
// against the procedure it names (route-types.ts); the rows live by area in the files imported here.
import { apiKeyRoutes, auditRoutes, deliveryRoutes, userRoutes } from "./admin-routes.js";
import { notificationRoutes } from "./notification-routes.js";
import { restrictionRoutes } from "./restriction-routes.js";
import type { RestRoute } from "./route-types.js";

export type { RestRoute };
export { apiKeyRoutes, auditRoutes, deliveryRoutes, notificationRoutes, restrictionRoutes, userRoutes };

export const restRoutes: readonly RestRoute[] = [
  ...restrictionRoutes,
  ...notificationRoutes,
  ...auditRoutes,
  ...apiKeyRoutes,
  ...deliveryRoutes,
  ...userRoutes,
];
