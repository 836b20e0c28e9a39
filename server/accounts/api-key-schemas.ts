// Inputs of the API key procedures (docs/api.md#service-api-keys).
import { z } from "zod";
import { apiKeyScopes } from "../../db/schema/api-key-scopes.js";
import { nonBlank, storableText } from "../http/text.js";
import { MAX_API_KEY_DAYS, MAX_API_KEY_NAME_LENGTH, MAX_API_KEY_PRODUCER_LENGTH } from "./api-key-limits.js";

export const createApiKeyInput = z.object({
  name: nonBlank(storableText().max(MAX_API_KEY_NAME_LENGTH, `must be at most ${MAX_API_KEY_NAME_LENGTH} characters`)).meta({
    description: `Who holds the key, 1 to ${MAX_API_KEY_NAME_LENGTH} characters, e.g. the service's name. Unique among keys that are not revoked: another is 409.`,
    examples: ["messaging-service"],
  }),
  producer: nonBlank(storableText().max(MAX_API_KEY_PRODUCER_LENGTH, `must be at most ${MAX_API_KEY_PRODUCER_LENGTH} characters`))
    .optional()
    .meta({
      description:
        `Whose events the key sends, 1 to ${MAX_API_KEY_PRODUCER_LENGTH} characters; absent: the name. Keys that share a producer ` +
        "share its eventIds (a duplicate is a duplicate whichever key sent it) and read its events: give a new key the old " +
        "one's producer to rotate it.",
      examples: ["messaging-service"],
    }),
  scopes: z
    .array(z.enum(apiKeyScopes, { error: `must be one of ${apiKeyScopes.join(", ")}` }))
    .min(1, "must list at least 1 scope")
    .refine((scopes) => new Set(scopes).size === scopes.length, "must not repeat a scope")
    .meta({
      uniqueItems: true,
      description:
        "What the key may do: flags:read (OFREP, /ofrep/*), notifications:write (the producer API), audit:read (the audit log export, GET /api/admin/audit/export). At least one, none repeated.",
      examples: [["flags:read"]],
    }),
  expiresInDays: z
    .number()
    .int()
    .min(1)
    .max(MAX_API_KEY_DAYS)
    .nullish()
    .meta({
      description: `Days until the key stops working, 1 to ${MAX_API_KEY_DAYS}; absent or null: it never expires.`,
      examples: [365],
    }),
});

export const apiKeyIdInput = z.object({
  id: z.string().meta({ description: "The key's id. An id that names no key is 404.", examples: ["3b8f2f0e-8c1d-4c55-9a43-4f3e7d2a9b10"] }),
});

export type CreateApiKeyInput = z.infer<typeof createApiKeyInput>;
