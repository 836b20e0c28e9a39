// The audit log: wiring only. Platform admins only.
import { adminProcedure, router } from "../../trpc/index.js";
import { auditContract as c } from "./contract.js";
import { listAuditEvents } from "./events.js";

export const auditRouter = router({
  list: adminProcedure.input(c.list.input).query(listAuditEvents),
});
