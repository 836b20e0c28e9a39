// The OpenAPI entries of the audit log's own door (server/rest/audit-log.ts): the NDJSON export and the
// verifier key. The checkpoint and proof operations come from the REST table like every procedure's.
import { EXPORT_PATH, LOG_KEY_PATH } from "./audit-log.js";

const errors = (...codes: string[]) => Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/responses/E${code}` }]));

const exportLine = {
  type: "object",
  required: ["leafIndex", "event"],
  additionalProperties: false,
  description: "One line of the export: a leaf of the log and its event. The leaf is the RFC 8785 (JCS) canonical JSON of `event`",
  properties: {
    leafIndex: { type: "integer", minimum: 0, description: "The event's leaf in the log, from 0" },
    event: { $ref: "#/components/schemas/AuditEvent" },
  },
};

export function auditLogPaths() {
  return {
    [EXPORT_PATH]: {
      get: {
        operationId: "audit.export",
        summary:
          "The audit log as NDJSON, one {leafIndex, event} a line in leaf order, from leaf after + 1 (admins, or a key with audit:read)",
        tags: ["Audit"],
        security: [{ bearerAuth: [] }, { sessionCookie: [] }, { apiKey: [] }],
        parameters: [
          {
            name: "after",
            in: "query",
            required: false,
            description: "The last leafIndex the reader has; absent for the whole log",
            schema: {
              type: "integer",
              minimum: 0,
              examples: [41],
              description: "The last leafIndex the reader has; absent for the whole log",
            },
          },
        ],
        responses: {
          "200": {
            description: "A stream of lines, each one JSON object (application/x-ndjson); it ends at the newest sealed leaf",
            content: { "application/x-ndjson": { schema: exportLine } },
          },
          ...errors("400", "401", "403", "429", "500", "503"),
        },
      },
    },
    [LOG_KEY_PATH]: {
      get: {
        operationId: "audit.logKey",
        summary: "The key that verifies the audit log's checkpoints, in C2SP note form (<origin>+<key hash>+<base64 key>)",
        tags: ["Audit"],
        security: [],
        responses: {
          "200": {
            description: "The verifier key, one line of text",
            content: { "text/plain": { schema: { type: "string", pattern: "^[^+\\s]+\\+[0-9a-f]{8}\\+[A-Za-z0-9+/=]+\\n$" } } },
          },
          ...errors("404", "500"),
        },
      },
    },
  };
}
