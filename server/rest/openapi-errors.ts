// The OpenAPI document's error answers: the envelope's schema, a description per status, and the headers
// errors and replays carry (openapi.ts puts them in components).

export const replayedHeader = {
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier write with the same Idempotency-Key (writes only)",
    schema: { const: "true" },
  },
};

export const retryAfterHeader = {
  "Retry-After": {
    description: "Seconds to wait before trying again",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
  },
};

export const errorResponses: Record<string, string> = {
  "400": "VALIDATION_ERROR: a missing, malformed or out-of-bounds field (listed in details), or blocked activation",
  "401": "UNAUTHORIZED: no, bad or expired session",
  "403": "FORBIDDEN: not a platform admin, another user's record, or a cookie write from an untrusted origin",
  "404": "NOT_FOUND: the named record does not exist",
  "409": "CONFLICT: the record already exists (e.g. a cohortNumber in use), or a request with the same Idempotency-Key is still running",
  "422": "VALIDATION_ERROR: the Idempotency-Key was already used with another method, path or body",
  "413": "PAYLOAD_TOO_LARGE: the body is over the size limit",
  "415": "VALIDATION_ERROR: the body is not JSON (send Content-Type: application/json)",
  "429": "TOO_MANY_REQUESTS: over a rate limit; Retry-After says when to try again",
  "500": "INTERNAL_ERROR (generic message)",
  "503": "SERVICE_UNAVAILABLE: the database cannot be reached",
};

export const errorResponse = (code: string, description: string, schema: unknown = { $ref: "#/components/schemas/Error" }) => ({
  description,
  headers: code === "429" ? { ...retryAfterHeader, ...replayedHeader } : replayedHeader,
  content: { "application/json": { schema } },
});

export const errorSchema = {
  type: "object",
  required: ["success", "error"],
  additionalProperties: false,
  properties: {
    success: { const: false },
    error: {
      type: "object",
      required: ["code", "message"],
      additionalProperties: false,
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
          description: "What went wrong, one of the contract's codes (docs/api.md#errors)",
        },
        message: { type: "string", description: "A sentence for a person" },
        details: {
          oneOf: [
            {
              type: "array",
              description: "The fields at fault, on a VALIDATION_ERROR about the input",
              items: {
                type: "object",
                required: ["field", "message"],
                additionalProperties: false,
                properties: {
                  field: { type: "string", description: "The field, dotted for nested ones (proIds.2)" },
                  message: { type: "string", description: "What is wrong with it" },
                },
              },
            },
            {
              type: "object",
              description:
                "On a SERVICE_UNAVAILABLE whose write may have committed (its COMMIT was sent and no answer came): retry with the same Idempotency-Key to learn the truth",
              required: ["outcome"],
              additionalProperties: false,
              properties: { outcome: { type: "string", enum: ["unknown"] } },
            },
          ],
        },
      },
    },
  },
};
