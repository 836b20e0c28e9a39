// Service API keys: wiring only. Platform admins only.
import { adminProcedure, router } from "../../trpc/index.js";
import { apiKeysContract as c } from "./contract.js";
import { createApiKey, listApiKeys, revokeApiKey } from "./keys.js";

export const apiKeysRouter = router({
  create: adminProcedure.input(c.create.input).mutation(createApiKey),
  list: adminProcedure.query(listApiKeys),
  revoke: adminProcedure.input(c.revoke.input).mutation(revokeApiKey),
});
