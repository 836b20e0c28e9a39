// The audit procedures' public shapes (server/routers/contract.ts): kind, input, answer.

import { listAuditInput, listAuditOutput } from "../../audit/listing-schemas.js";
import { query } from "../contract.js";

export const auditContract = {
  list: query(listAuditOutput, listAuditInput),
};
