// Producers' events and their push deliveries: wiring only. Platform admins only.

import { recentEvents } from "../../notifications/deliveries.js";
import { adminProcedure, router } from "../../trpc/index.js";
import { deliveriesContract as c } from "./contract.js";

export const deliveriesRouter = router({
  recent: adminProcedure.input(c.recent.input).query(recentEvents),
});
