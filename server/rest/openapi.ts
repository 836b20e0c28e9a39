// The OpenAPI 3.1 document of the REST surface, generated from the route table and the procedures'
// contracts (server/routers/contract.ts): each request from the input schema, each success from the output
// schema, so the reference cannot drift from what the adapter serves (test/helpers/contract-check.ts holds
// every answer the suites get to it).
import { z } from "zod";
import { IDEMPOTENCY_KEY_PATTERN, takesIdempotencyKey } from "../http/idempotency-key.js";
import { EVENTS_PATH } from "../producers/paths.js";
import { eventBatchInput, eventBatchOutput, eventStatusOutput, producerEvent } from "../producers/schemas.js";
import { inputSchemaOf, outputSchemaOf } from "../routers/index.js";
import { SERVICE_VERSION } from "../version.js";
import { KEY_CREATED_MESSAGE } from "./api-key-replay.js";
import { auditLogPaths } from "./openapi-audit-log.js";
import { AUTH_TAG, authOpenApi } from "./openapi-auth.js";
import { errorResponse, errorResponses, errorSchema, replayedHeader } from "./openapi-errors.js";
import { receiptPaths } from "./openapi-receipts.js";
import type { QueryField } from "./query.js";
import { type RestRoute, restRoutes } from "./routes.js";

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

const TAGS = [
  {
    name: "Restriction administration",
    description: "Per-pro flags, numbered cohorts, gate checks, gated activation and rollback. Platform admins only.",
  },
  { name: "Notifications", description: "The caller's inbox, unread count and push subscriptions; the admin test endpoints." },
  { name: "Audit", description: "The append-only log of admin changes. Platform admins only." },
  {
    name: "Accounts",
    description:
      "Account administration: users, the admin role, bans, passwords, sessions and impersonation. Platform admins only; " +
      "four-eyes rules apply while APPROVALS=required.",
  },
  {
    name: "Service API keys",
    description:
      "Keys other services present in X-API-Key to read the restriction over OFREP (/ofrep/*, documented by OFREP's own OpenAPI " +
      "document: https://github.com/open-feature/protocol/blob/main/service/openapi.yaml) and to send notifications. Platform admins only.",
  },
  {
    name: "Producers",
    description: "Other services send notifications to users with a service API key holding notifications:write.",
  },
  AUTH_TAG,
] as const;

const tagOf = (path: string): (typeof TAGS)[number]["name"] =>
  path.startsWith("/api/admin/restriction") || path.startsWith("/api/admin/pro-restriction")
    ? "Restriction administration"
    : path.startsWith("/api/admin/audit")
      ? "Audit"
      : path.startsWith("/api/admin/users") || path.startsWith("/api/admin/impersonation")
        ? "Accounts"
        : "Notifications";

const pathParams = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** A zod date is sent as its ISO 8601 text (JSON.stringify calls toISOString). */
const datesAsText: NonNullable<Parameters<typeof z.toJSONSchema>[1]>["override"] = (ctx) => {
  if (ctx.zodSchema._zod.def.type === "date") {
    ctx.jsonSchema.type = "string";
    ctx.jsonSchema.format = "date-time";
  }
};

/** One schema as a JSON Schema of this document: no $schema of its own, dates as their ISO text. */
function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12", override: datesAsText }) as JsonSchema;
  delete json.$schema;
  return json;
}

function inputSchema(route: RestRoute): JsonSchema | null {
  const schema = inputSchemaOf(route.procedure);
  return schema ? jsonSchemaOf(schema, "input") : null;
}

/**
 * Every route's answer, rendered in one pass so that shared shapes (those with a meta id, as Cohort) become
 * components referenced by each operation. `metadata` set to an empty registry renders them inline and
 * without descriptions, as a serializer wants them (server/rest/serializers.ts).
 */
export function outputJsonSchemas(
  routes: readonly Pick<RestRoute, "procedure">[],
  options: { metadata?: z.core.$ZodRegistry<z.GlobalMeta> } = {},
) {
  const all = z.object(Object.fromEntries(routes.map((route) => [route.procedure, outputSchemaOf(route.procedure)])));
  const json = z.toJSONSchema(all, {
    io: "output",
    unrepresentable: "any",
    target: "draft-2020-12",
    override: datesAsText,
    ...(options.metadata ? { metadata: options.metadata } : {}),
  }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  // One document: the shared shapes live under components, not under this one schema's $defs.
  const relocated = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as typeof json;
  return { byProcedure: relocated.properties ?? {}, components: relocated.$defs ?? {} };
}

/** The envelope of a success around the procedure's answer (docs/api.md#envelope). */
export const successEnvelope = (data: JsonSchema) => ({
  type: "object",
  required: ["success", "data"],
  additionalProperties: false,
  properties: { success: { const: true }, data },
});

/**
 * A query field the REST edge reads leniently (server/rest/query.ts): text that is not a number is no value,
 * so the procedure's default applies (`?page=abc` is page 1, as the spec says). Its schema admits any text.
 */
function queryParameterSchema(field: JsonSchema, reader: QueryField): JsonSchema {
  if (reader !== "number") return field;
  const { type: _number, ...rest } = field;
  return { ...rest, type: ["number", "string"] };
}

const IDEMPOTENCY_KEY_DESCRIPTION =
  "Optional; makes the request safe to retry (docs/api.md#safe-retries). 1 to 255 visible ASCII characters, " +
  "per caller, kept 24 hours. A repeat with the same key, method, path and body answers the first answer's " +
  "status and body again with `Idempotent-Replayed: true` and changes nothing; the same key with another " +
  "request is 422, while the first still runs 409. A first answer of 5xx is not kept.";

/** The optional header of every write (server/rest/idempotency.ts). */
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

/** Answers of the admin test push besides the envelope: push not configured is the contract's bare 500. */
const TEST_PUSH = "notifications.testPush";

/** Splits a procedure's input into path parameters and the part that comes from the query or body. */
function operation(route: RestRoute, data: JsonSchema) {
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
    const readers = route.query as Readonly<Record<string, QueryField>>;
    for (const [name, prop] of Object.entries(properties)) {
      parameters.push(parameter(name, "query", queryParameterSchema(prop, readers[name] ?? "text")));
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
  const write = route.method !== "GET";
  const retriable = takesIdempotencyKey(route.method, route.path);
  if (retriable) parameters.push(idempotencyKeyParameter);
  const errorCodes = [
    "400",
    "401",
    "403",
    "404",
    "409",
    ...(retriable ? ["422"] : []),
    "413",
    ...(write ? ["415"] : []),
    "429",
    "500",
    "503",
  ];
  const errors = Object.fromEntries(errorCodes.map((code) => [code, { $ref: `#/components/responses/E${code}` }]));
  if (route.procedure === TEST_PUSH) errors["500"] = { $ref: "#/components/responses/E500TestPush" };
  if (route.procedure === "apiKeys.create") errors["409"] = { $ref: "#/components/responses/E409KeyCreated" };
  return {
    operationId: route.operationId ?? route.procedure,
    summary: route.summary,
    tags: [tagOf(route.path)],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [status]: {
        description: "Success",
        ...(retriable ? { headers: replayedHeader } : {}),
        content: { "application/json": { schema: successEnvelope(data) } },
      },
      ...(route.acceptedWhenRequested
        ? {
            "202": {
              description: "Accepted: approvals are required, so a grant-admin change request waits for a second admin (`changeRequest`)",
              ...(retriable ? { headers: replayedHeader } : {}),
              content: { "application/json": { schema: successEnvelope(data) } },
            },
          }
        : {}),
      ...errors,
    },
  };
}

export type OpenApiOptions = {
  /** The service's public URL (BETTER_AUTH_URL): the document's server. */
  serverUrl?: string;
};

const producerErrors = (...codes: string[]) => Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/responses/E${code}` }]));

/** The producer API's two operations: a key with notifications:write, never a session. */
function producerPaths() {
  const security = [{ apiKey: [] }];
  return {
    [EVENTS_PATH]: {
      post: {
        operationId: "producer.sendEvents",
        summary: "Send 1 to 100 events as notifications to users (a key with notifications:write)",
        tags: ["Producers"],
        security,
        requestBody: { required: true, content: { "application/json": { schema: jsonSchemaOf(eventBatchInput, "input") } } },
        responses: {
          "200": {
            description: "One result per event",
            content: { "application/json": { schema: successEnvelope(jsonSchemaOf(eventBatchOutput, "output")) } },
          },
          ...producerErrors("400", "401", "403", "413", "415", "429", "500", "503"),
        },
      },
    },
    [`${EVENTS_PATH}/{eventId}`]: {
      get: {
        operationId: "producer.eventStatus",
        summary: "What became of an event: its notification and its push deliveries (a key with notifications:write)",
        tags: ["Producers"],
        security,
        parameters: [
          {
            name: "eventId",
            in: "path",
            required: true,
            description: "The producer's eventId",
            schema: { type: "string", description: "The producer's eventId" },
          },
        ],
        responses: {
          "200": {
            description: "The event",
            content: { "application/json": { schema: successEnvelope(jsonSchemaOf(eventStatusOutput, "output")) } },
          },
          ...producerErrors("401", "403", "404", "429", "500", "503"),
        },
      },
    },
  };
}

export function buildOpenApiDocument(routes: readonly RestRoute[] = restRoutes, options: OpenApiOptions = {}) {
  const outputs = outputJsonSchemas(routes);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, outputs.byProcedure[route.procedure] ?? {});
  }
  Object.assign(paths, producerPaths(), auditLogPaths(), receiptPaths(jsonSchemaOf));
  const auth = authOpenApi();
  Object.assign(paths, auth.paths);
  return {
    openapi: "3.1.0",
    info: {
      title: "Restriction Rollout & User Notifications",
      version: SERVICE_VERSION,
      description:
        "Restriction administration for platform admins and per-user notifications. Sign up or sign in at " +
        "`/api/auth/sign-up/email` or `/api/auth/sign-in/email` and send the returned token as `Authorization: Bearer <token>`.",
    },
    servers: [{ url: options.serverUrl ?? "/", description: "This service" }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "The session token from sign-in" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "A service API key (docs/api.md#service-api-keys)" },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "better-auth.session_token",
          description: "The session cookie a browser holds after sign-in; its writes must come from a trusted origin",
        },
      },
      schemas: {
        ...outputs.components,
        ...auth.schemas,
        ProducerEvent: jsonSchemaOf(producerEvent, "input"),
        Error: errorSchema,
        KeyCreatedReplay: {
          type: "object",
          required: ["success", "error"],
          additionalProperties: false,
          description:
            "A replay of a key's creation (same Idempotency-Key): the key made, never its secret again (docs/api.md#service-api-keys)",
          properties: {
            success: { const: false },
            error: {
              type: "object",
              required: ["code", "message", "details"],
              additionalProperties: false,
              properties: {
                code: { const: "CONFLICT" },
                message: { const: KEY_CREATED_MESSAGE },
                details: {
                  type: "object",
                  required: ["apiKey"],
                  additionalProperties: false,
                  properties: { apiKey: { $ref: "#/components/schemas/ApiKey" } },
                },
              },
            },
          },
        },
        VapidNotConfigured: {
          type: "object",
          required: ["error"],
          additionalProperties: false,
          properties: { error: { const: "VAPID not configured" } },
          description: "The contract's one bare error (docs/api.md#errors): a test push while push is not configured",
        },
      },
      responses: {
        ...Object.fromEntries(Object.entries(errorResponses).map(([code, description]) => [`E${code}`, errorResponse(code, description)])),
        E500TestPush: errorResponse("500", "INTERNAL_ERROR, or the bare VapidNotConfigured body when push is not configured", {
          anyOf: [{ $ref: "#/components/schemas/Error" }, { $ref: "#/components/schemas/VapidNotConfigured" }],
        }),
        E409KeyCreated: errorResponse(
          "409",
          "CONFLICT: a request with the same Idempotency-Key is still running, or it made a key (KeyCreatedReplay)",
          {
            anyOf: [{ $ref: "#/components/schemas/Error" }, { $ref: "#/components/schemas/KeyCreatedReplay" }],
          },
        ),
      },
    },
  };
}
