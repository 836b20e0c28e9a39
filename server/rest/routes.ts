// The REST surface as a table: method, path, the procedure it calls, how the request becomes the
// procedure's input, and the success status. The adapter registers it; the OpenAPI document reads it.
import type { RequestParts } from "./adapter.js";

export type RestRoute = {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Fastify path, mount point included. */
  path: string;
  /** The tRPC procedure, as `router.procedure`. */
  procedure: string;
  /** The procedure's input from the request; none when omitted. */
  input?: (request: RequestParts) => unknown;
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
    input: ({ body }) => body,
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
    input: ({ params, body }) => ({ ...body, id: params.id }),
    status: 201,
    summary: "Record a prerequisite gate check for a cohort",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts/:id/activate`,
    procedure: "restriction.activateCohort",
    input: ({ params }) => ({ id: params.id }),
    summary: "Activate a cohort whose latest gate check passed",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/cohorts/:id/rollback`,
    procedure: "restriction.rollbackCohort",
    input: ({ params, body }) => ({ ...body, id: params.id }),
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
    input: ({ params }) => ({ proId: params.proId }),
    summary: "Read one pro's restriction status",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/:proId/activate`,
    procedure: "restriction.activatePro",
    input: ({ params }) => ({ proId: params.proId }),
    summary: "Switch one pro's restriction on (ungated)",
  },
  {
    method: "POST",
    path: `${RESTRICTION}/:proId/rollback`,
    procedure: "restriction.rollbackPro",
    input: ({ params }) => ({ proId: params.proId }),
    summary: "Switch one pro's restriction off",
  },
];

// Notifications (issue B) add their rows here.
export const notificationRoutes: RestRoute[] = [];

export const restRoutes: RestRoute[] = [...restrictionRoutes, ...notificationRoutes];
