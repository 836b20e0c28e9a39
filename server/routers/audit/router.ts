// The audit log: wiring only. Platform admins only.
import { adminProcedure, router } from "../../trpc/index.js";
import { listAuditEvents } from "./events.js";
import { listAuditInput, listAuditOutput } from "./schemas.js";

/** The input schema of each procedure that takes input: the router parses with it, the REST reference shows it. */
export const auditInputs = { list: listAuditInput };

export const auditRouter = router({
  list: adminProcedure.input(auditInputs.list).output(listAuditOutput).query(listAuditEvents),
});
