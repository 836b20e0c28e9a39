// Restriction administration: wiring only. Every procedure requires a platform admin.

import {
  approveChangeRequest,
  cancelChangeRequest,
  createChangeRequest,
  createProChangeRequest,
  getChangeRequest,
  listChangeRequests,
  rejectChangeRequest,
} from "../../restriction/change-requests.js";
import { activateCohort, checkGates, createCohort, listCohorts, listGateChecks, rollbackCohort } from "../../restriction/cohorts.js";
import { cohortCoverage } from "../../restriction/coverage.js";
import { proHistory } from "../../restriction/history.js";
import { previewCohort, previewNewCohort } from "../../restriction/preview.js";
import { activatePro, getProStatus, listActivePros, rollbackPro } from "../../restriction/pros.js";
import { adminProcedure, router } from "../../trpc/index.js";
import { restrictionContract as c } from "./contract.js";

export const restrictionRouter = router({
  createCohort: adminProcedure.input(c.createCohort.input).mutation(createCohort),
  previewNewCohort: adminProcedure.input(c.previewNewCohort.input).mutation(previewNewCohort),
  listCohorts: adminProcedure.query(listCohorts),
  checkGates: adminProcedure.input(c.checkGates.input).mutation(checkGates),
  listGateChecks: adminProcedure.input(c.listGateChecks.input).query(listGateChecks),
  previewCohort: adminProcedure.input(c.previewCohort.input).query(previewCohort),
  cohortCoverage: adminProcedure.input(c.cohortCoverage.input).query(cohortCoverage),
  activateCohort: adminProcedure.input(c.activateCohort.input).mutation(activateCohort),
  rollbackCohort: adminProcedure.input(c.rollbackCohort.input).mutation(rollbackCohort),
  listActive: adminProcedure.query(listActivePros),
  getPro: adminProcedure.input(c.getPro.input).query(getProStatus),
  activatePro: adminProcedure.input(c.activatePro.input).mutation(activatePro),
  rollbackPro: adminProcedure.input(c.rollbackPro.input).mutation(rollbackPro),
  proHistory: adminProcedure.input(c.proHistory.input).query(proHistory),

  createChangeRequest: adminProcedure.input(c.createChangeRequest.input).mutation(createChangeRequest),
  createProChangeRequest: adminProcedure.input(c.createProChangeRequest.input).mutation(createProChangeRequest),
  listChangeRequests: adminProcedure.input(c.listChangeRequests.input).query(listChangeRequests),
  getChangeRequest: adminProcedure.input(c.getChangeRequest.input).query(getChangeRequest),
  approveChangeRequest: adminProcedure.input(c.approveChangeRequest.input).mutation(approveChangeRequest),
  rejectChangeRequest: adminProcedure.input(c.rejectChangeRequest.input).mutation(rejectChangeRequest),
  cancelChangeRequest: adminProcedure.input(c.cancelChangeRequest.input).mutation(cancelChangeRequest),
});
