// What the API key procedures answer (as server/routers/restriction/outputs.ts says). Never the secret's
// hash; the secret itself only in createApiKey's answer.
import { z } from "zod";
import { apiKeyScopes } from "../../../db/schema/api-key-scopes.js";

const instant = (what: string) => z.date().describe(`${what} (ISO 8601 date-time, UTC)`);

export const apiKeyOutput = z
  .object({
    id: z.string().describe("The key's id (a UUID)"),
    name: z.string().describe("Who holds the key"),
    producer: z.string().describe("Whose events the key sends: keys that share it share its eventIds"),
    scopes: z.array(z.enum(apiKeyScopes)).describe("What the key may do"),
    prefix: z.string().describe("The secret's first characters, to recognise it"),
    createdAt: instant("When it was created"),
    createdBy: z.object({ id: z.string(), email: z.string() }).describe("The admin who created it"),
    expiresAt: instant("When it stops working").nullable().describe("When it stops working; null: never"),
    lastUsedAt: instant("When it was last used").nullable().describe("When it was last used, to the minute; null: never"),
    revokedAt: instant("When it was revoked").nullable().describe("When it was revoked; null while it works"),
  })
  .meta({ id: "ApiKey", description: "A service API key, without its secret" });

export const createdApiKeyOutput = z.object({
  apiKey: apiKeyOutput,
  secret: z.string().describe("The secret to send as X-API-Key. Shown in this answer only: it cannot be read again."),
});

export const apiKeyListOutput = z.object({ apiKeys: z.array(apiKeyOutput).describe("Every key, newest first, revoked ones included") });

export const revokedApiKeyOutput = z.object({ apiKey: apiKeyOutput.describe("The key, now revoked") });
