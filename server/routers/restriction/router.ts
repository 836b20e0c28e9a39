// Restriction administration: wiring only. Every procedure requires a platform admin.
import { adminProcedure, router } from "../../trpc/index.js";
import { activateCohort, checkGates, createCohort, listCohorts, rollbackCohort } from "./cohorts.js";
import { activatePro, getProStatus, listActivePros, rollbackPro } from "./pros.js";
import { checkGatesInput, cohortIdInput, createCohortInput, proIdInput, rollbackCohortInput } from "./schemas.js";

/** The input schema of each procedure that takes input: the router parses with it, the REST reference shows it. */
export const restrictionInputs = {
  createCohort: createCohortInput,
  checkGates: checkGatesInput,
  activateCohort: cohortIdInput,
  rollbackCohort: rollbackCohortInput,
  getPro: proIdInput,
  activatePro: proIdInput,
  rollbackPro: proIdInput,
};
const input = restrictionInputs;

export const restrictionRouter = router({
  createCohort: adminProcedure.input(input.createCohort).mutation(createCohort),
  listCohorts: adminProcedure.query(listCohorts),
  checkGates: adminProcedure.input(input.checkGates).mutation(checkGates),
  activateCohort: adminProcedure.input(input.activateCohort).mutation(activateCohort),
  rollbackCohort: adminProcedure.input(input.rollbackCohort).mutation(rollbackCohort),
  listActive: adminProcedure.query(listActivePros),
  getPro: adminProcedure.input(input.getPro).query(getProStatus),
  activatePro: adminProcedure.input(input.activatePro).mutation(activatePro),
  rollbackPro: adminProcedure.input(input.rollbackPro).mutation(rollbackPro),
});
