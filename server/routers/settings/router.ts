// The service's modes for the console: wiring only. Platform admins only.
import { adminProcedure, router } from "../../trpc/index.js";
import { getSettings } from "./settings.js";

export const settingsRouter = router({
  get: adminProcedure.query(getSettings),
});
