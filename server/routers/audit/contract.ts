// The audit procedures' public shapes (server/routers/contract.ts): kind, input, answer.

import { listAuditInput, listAuditOutput } from "../../audit/listing-schemas.js";
import { query } from "../contract.js";
import { checkpointOutput, consistencyProofInput, inclusionProofInput, proofOutput } from "./log-schemas.js";

export const auditContract = {
  list: query(listAuditOutput, listAuditInput),
  checkpoint: query(checkpointOutput),
  inclusionProof: query(proofOutput, inclusionProofInput),
  consistencyProof: query(proofOutput, consistencyProofInput),
};
