// The audit log: wiring only. Platform admins only.

import { listAuditEvents } from "../../audit/listing.js";
import { adminProcedure, router } from "../../trpc/index.js";
import { auditContract as c } from "./contract.js";

export const auditRouter = router({
  list: adminProcedure.input(c.list.input).query(listAuditEvents),
});
