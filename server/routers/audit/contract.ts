// The audit procedures' public shapes (server/routers/contract.ts): kind, input, answer.
import { query } from "../contract.js";
import { checkpointOutput, consistencyProofInput, inclusionProofInput, proofOutput } from "./log-schemas.js";
import { listAuditInput, listAuditOutput } from "./schemas.js";

export const auditContract = {
  list: query(listAuditOutput, listAuditInput),
  checkpoint: query(checkpointOutput),
  inclusionProof: query(proofOutput, inclusionProofInput),
  consistencyProof: query(proofOutput, consistencyProofInput),
};
