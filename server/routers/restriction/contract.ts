// The restriction procedures' public shapes (server/routers/contract.ts): kind, input, answer.

import { z } from "zod";
import { mutation, query } from "../contract.js";
import {
  changeRequestAnswer,
  changeRequestListOutput,
  cohortOutput,
  gateCheckOutput,
  impactOutput,
  proHistoryOutput,
  proLookupOutput,
  proStatusOutput,
} from "./outputs.js";
import {
  approveChangeRequestInput,
  changeRequestIdInput,
  checkGatesInput,
  cohortIdInput,
  createChangeRequestInput,
  createCohortInput,
  listChangeRequestsInput,
  previewCohortInput,
  proIdInput,
  rejectChangeRequestInput,
  rollbackCohortInput,
} from "./schemas.js";

export const restrictionContract = {
  createCohort: mutation(cohortOutput, createCohortInput),
  listCohorts: query(z.array(cohortOutput)),
  checkGates: mutation(gateCheckOutput, checkGatesInput),
  listGateChecks: query(z.array(gateCheckOutput), cohortIdInput),
  previewCohort: query(impactOutput, previewCohortInput),
  activateCohort: mutation(cohortOutput, cohortIdInput),
  rollbackCohort: mutation(cohortOutput, rollbackCohortInput),
  listActive: query(z.array(proStatusOutput)),
  getPro: query(proLookupOutput, proIdInput),
  activatePro: mutation(proStatusOutput, proIdInput),
  rollbackPro: mutation(proStatusOutput, proIdInput),
  proHistory: query(proHistoryOutput, proIdInput),

  createChangeRequest: mutation(changeRequestAnswer, createChangeRequestInput),
  listChangeRequests: query(changeRequestListOutput, listChangeRequestsInput),
  getChangeRequest: query(changeRequestAnswer, changeRequestIdInput),
  approveChangeRequest: mutation(changeRequestAnswer, approveChangeRequestInput),
  rejectChangeRequest: mutation(changeRequestAnswer, rejectChangeRequestInput),
  cancelChangeRequest: mutation(changeRequestAnswer, changeRequestIdInput),
};
