// The restriction procedures' public shapes (server/routers/contract.ts): kind, input, answer.

import { z } from "zod";
import {
  approveChangeRequestInput,
  changeRequestIdInput,
  checkGatesInput,
  cohortIdInput,
  createChangeRequestInput,
  createCohortInput,
  createProChangeRequestInput,
  listChangeRequestsInput,
  previewCohortInput,
  previewNewCohortInput,
  proIdInput,
  rejectChangeRequestInput,
  rollbackCohortInput,
} from "../../restriction/schemas.js";
import { mutation, query } from "../contract.js";
import {
  changeRequestAnswer,
  changeRequestListOutput,
  cohortCoverageOutput,
  cohortOutput,
  gateCheckOutput,
  impactOutput,
  newCohortPreviewOutput,
  proHistoryOutput,
  proLookupOutput,
  proStatusOutput,
} from "./outputs.js";

export const restrictionContract = {
  createCohort: mutation(cohortOutput, createCohortInput),
  // A read, but of a body of up to 500 ids: a POST (docs/api.md#new-cohort-preview).
  previewNewCohort: mutation(newCohortPreviewOutput, previewNewCohortInput),
  listCohorts: query(z.array(cohortOutput)),
  checkGates: mutation(gateCheckOutput, checkGatesInput),
  listGateChecks: query(z.array(gateCheckOutput), cohortIdInput),
  previewCohort: query(impactOutput, previewCohortInput),
  cohortCoverage: query(cohortCoverageOutput, cohortIdInput),
  activateCohort: mutation(cohortOutput, cohortIdInput),
  rollbackCohort: mutation(cohortOutput, rollbackCohortInput),
  listActive: query(z.array(proStatusOutput)),
  getPro: query(proLookupOutput, proIdInput),
  activatePro: mutation(proStatusOutput, proIdInput),
  rollbackPro: mutation(proStatusOutput, proIdInput),
  proHistory: query(proHistoryOutput, proIdInput),

  createChangeRequest: mutation(changeRequestAnswer, createChangeRequestInput),
  createProChangeRequest: mutation(changeRequestAnswer, createProChangeRequestInput),
  listChangeRequests: query(changeRequestListOutput, listChangeRequestsInput),
  getChangeRequest: query(changeRequestAnswer, changeRequestIdInput),
  approveChangeRequest: mutation(changeRequestAnswer, approveChangeRequestInput),
  rejectChangeRequest: mutation(changeRequestAnswer, rejectChangeRequestInput),
  cancelChangeRequest: mutation(changeRequestAnswer, changeRequestIdInput),
};
