// The API key procedures' public shapes (server/routers/contract.ts): kind, input, answer.

import { apiKeyIdInput, createApiKeyInput } from "../../accounts/api-key-schemas.js";
import { mutation, query } from "../contract.js";
import { apiKeyListOutput, createdApiKeyOutput, revokedApiKeyOutput } from "./outputs.js";

export const apiKeysContract = {
  create: mutation(createdApiKeyOutput, createApiKeyInput),
  list: query(apiKeyListOutput),
  revoke: mutation(revokedApiKeyOutput, apiKeyIdInput),
};
