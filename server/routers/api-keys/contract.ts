// The API key procedures' public shapes (server/routers/contract.ts): kind, input, answer.
import { mutation, query } from "../contract.js";
import { apiKeyListOutput, createdApiKeyOutput, revokedApiKeyOutput } from "./outputs.js";
import { apiKeyIdInput, createApiKeyInput } from "./schemas.js";

export const apiKeysContract = {
  create: mutation(createdApiKeyOutput, createApiKeyInput),
  list: query(apiKeyListOutput),
  revoke: mutation(revokedApiKeyOutput, apiKeyIdInput),
};
