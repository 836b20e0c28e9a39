// Restriction administration: wiring only. Every procedure requires a platform admin.
import { adminProcedure, router } from "../../trpc/index.js";
import { activateCohort, checkGates, createCohort, listCohorts, listGateChecks, rollbackCohort } from "./cohorts.js";
import { proHistory } from "./history.js";
import { previewCohort } from "./preview.js";
import { activatePro, getProStatus, listActivePros, rollbackPro } from "./pros.js";
import { checkGatesInput, cohortIdInput, createCohortInput, previewCohortInput, proIdInput, rollbackCohortInput } from "./schemas.js";

/** The input schema of each procedure that takes input: the router parses with it, the REST reference shows it. */
export const restrictionInputs = {
  createCohort: createCohortInput,
  checkGates: checkGatesInput,
  listGateChecks: cohortIdInput,
  previewCohort: previewCohortInput,
  activateCohort: cohortIdInput,
  rollbackCohort: rollbackCohortInput,
  getPro: proIdInput,
  activatePro: proIdInput,
  rollbackPro: proIdInput,
  proHistory: proIdInput,
};
const input = restrictionInputs;

export const restrictionRouter = router({
  createCohort: adminProcedure.input(input.createCohort).mutation(createCohort),
  listCohorts: adminProcedure.query(listCohorts),
  checkGates: adminProcedure.input(input.checkGates).mutation(checkGates),
  listGateChecks: adminProcedure.input(input.listGateChecks).query(listGateChecks),
  previewCohort: adminProcedure.input(input.previewCohort).query(previewCohort),
  activateCohort: adminProcedure.input(input.activateCohort).mutation(activateCohort),
  rollbackCohort: adminProcedure.input(input.rollbackCohort).mutation(rollbackCohort),
  listActive: adminProcedure.query(listActivePros),
  getPro: adminProcedure.input(input.getPro).query(getProStatus),
  activatePro: adminProcedure.input(input.activatePro).mutation(activatePro),
  rollbackPro: adminProcedure.input(input.rollbackPro).mutation(rollbackPro),
  proHistory: adminProcedure.input(input.proHistory).query(proHistory),
});
