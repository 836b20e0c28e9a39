// The OpenAPI 3.1 document of the REST surface, generated from the route table and the procedures'
// zod input schemas, so the reference cannot drift from what the adapter serves.
import { z } from "zod";
import { IDEMPOTENCY_KEY_PATTERN, takesIdempotencyKey } from "../http/idempotency-key.js";
import { inputSchemaOf } from "../routers/index.js";
import { type RestRoute, restRoutes } from "./routes.js";

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

const tagOf = (path: string) =>
  path.startsWith("/api/admin/restriction")
    ? "Restriction administration"
    : path.startsWith("/api/admin/audit")
      ? "Audit"
      : "Notifications";

const pathParams = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

function inputSchema(route: RestRoute): JsonSchema | null {
  const schema = inputSchemaOf(route.procedure);
  if (!schema) return null;
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete json.$schema;
  return json;
}

const IDEMPOTENCY_KEY_DESCRIPTION =
  "Optional; makes the request safe to retry (docs/api.md#safe-retries). 1 to 255 visible ASCII characters, " +
  "per caller, kept 24 hours. A repeat with the same key, method, path and body answers the first answer's " +
  "status and body again with `Idempotent-Replayed: true` and changes nothing; the same key with another " +
  "request is 422, while the first still runs 409. A first answer of 5xx is not kept.";

/** The optional header of every write (server/http/idempotency.ts). */
const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: IDEMPOTENCY_KEY_DESCRIPTION,
  schema: {
    type: "string",
    minLength: 1,
    maxLength: 255,
    pattern: IDEMPOTENCY_KEY_PATTERN.source,
    description: IDEMPOTENCY_KEY_DESCRIPTION,
  },
};

const replayedHeader = {
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key",
    schema: { const: "true" },
  },
};

/** Splits a procedure's input into path parameters and the part that comes from the query or body. */
function operation(route: RestRoute) {
  const schema = inputSchema(route);
  const inPath = pathParams(route.path);
  const properties = { ...(schema?.properties ?? {}) };
  const required = new Set(schema?.required ?? []);
  // Swagger UI shows a parameter's own description, not its schema's: the field's description is lifted.
  const parameter = (name: string, where: "path" | "query", field: JsonSchema) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    ...(typeof field.description === "string" ? { description: field.description } : {}),
    schema: field,
  });
  const parameters: unknown[] = inPath.map((name) => parameter(name, "path", properties[name] ?? { type: "string" }));
  for (const name of inPath) {
    delete properties[name];
    required.delete(name);
  }
  let requestBody: unknown;
  if (route.input === "query") {
    for (const [name, prop] of Object.entries(properties)) {
      parameters.push(parameter(name, "query", prop));
    }
  } else if (route.input === "body" && schema) {
    requestBody = {
      required: required.size > 0,
      content: {
        "application/json": {
          schema: { ...schema, properties, ...(required.size ? { required: [...required] } : { required: undefined }) },
        },
      },
    };
  }
  const status = String(route.status ?? 200);
  const retriable = takesIdempotencyKey(route.method, route.path);
  if (retriable) parameters.push(idempotencyKeyParameter);
  const errorCodes = ["400", "401", "403", "404", "409", ...(retriable ? ["422"] : []), "413", "429", "500", "503"];
  return {
    operationId: route.procedure,
    summary: route.summary,
    tags: [tagOf(route.path)],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [status]: {
        description: "Success",
        ...(retriable ? { headers: replayedHeader } : {}),
        content: { "application/json": { schema: { $ref: "#/components/schemas/Success" } } },
      },
      ...Object.fromEntries(errorCodes.map((code) => [code, { $ref: `#/components/responses/E${code}` }])),
    },
  };
}

const errorResponses: Record<string, string> = {
  "400": "VALIDATION_ERROR: a missing, malformed or out-of-bounds field (listed in details), or blocked activation",
  "401": "UNAUTHORIZED: no, bad or expired session",
  "403": "FORBIDDEN: not a platform admin, or another user's record",
  "404": "NOT_FOUND: the named record does not exist",
  "409": "CONFLICT: the record already exists (e.g. a cohortNumber in use), or a request with the same Idempotency-Key is still running",
  "422": "VALIDATION_ERROR: the Idempotency-Key was already used with another method, path or body",
  "413": "PAYLOAD_TOO_LARGE: the body is over the size limit",
  "429": "TOO_MANY_REQUESTS",
  "500": "INTERNAL_ERROR (generic message)",
  "503": "SERVICE_UNAVAILABLE: the database cannot be reached",
};

export function buildOpenApiDocument(routes: readonly RestRoute[] = restRoutes) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Restriction Rollout & User Notifications",
      version: "1.0.0",
      description:
        "Restriction administration for platform admins and per-user notifications. Sign up or sign in at " +
        "`/api/auth/sign-up/email` or `/api/auth/sign-in/email` and send the returned token as `Authorization: Bearer <token>`.",
    },
    tags: [{ name: "Restriction administration" }, { name: "Notifications" }, { name: "Audit" }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "The session token from sign-in" },
        sessionCookie: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
      },
      schemas: {
        Success: {
          type: "object",
          required: ["success", "data"],
          properties: { success: { const: true }, data: { description: "The payload of the operation" } },
        },
        Error: {
          type: "object",
          required: ["success", "error"],
          properties: {
            success: { const: false },
            error: {
              type: "object",
              required: ["code", "message"],
              properties: {
                code: {
                  enum: [
                    "VALIDATION_ERROR",
                    "UNAUTHORIZED",
                    "FORBIDDEN",
                    "NOT_FOUND",
                    "CONFLICT",
                    "PAYLOAD_TOO_LARGE",
                    "TOO_MANY_REQUESTS",
                    "INTERNAL_ERROR",
                    "SERVICE_UNAVAILABLE",
                  ],
                },
                message: { type: "string" },
                details: {
                  type: "array",
                  items: {
                    type: "object",
                    required: ["field", "message"],
                    properties: { field: { type: "string" }, message: { type: "string" } },
                  },
                },
              },
            },
          },
        },
      },
      responses: Object.fromEntries(
        Object.entries(errorResponses).map(([code, description]) => [
          `E${code}`,
          { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        ]),
      ),
    },
  };
}
