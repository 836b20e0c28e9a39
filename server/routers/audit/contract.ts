// The audit procedures' public shapes (server/routers/contract.ts): kind, input, answer.
import { query } from "../contract.js";
import { listAuditInput, listAuditOutput } from "./schemas.js";

export const auditContract = {
  list: query(listAuditOutput, listAuditInput),
};
