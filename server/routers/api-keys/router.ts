// Service API keys: wiring only. Platform admins only.

import { createApiKey, listApiKeys, revokeApiKey } from "../../accounts/api-keys.js";
import { adminProcedure, router } from "../../trpc/index.js";
import { apiKeysContract as c } from "./contract.js";

export const apiKeysRouter = router({
  create: adminProcedure.input(c.create.input).mutation(createApiKey),
  list: adminProcedure.query(listApiKeys),
  revoke: adminProcedure.input(c.revoke.input).mutation(revokeApiKey),
});
