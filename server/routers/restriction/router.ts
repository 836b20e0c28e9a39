// Restriction administration: wiring only. Every procedure requires a platform admin.
import { adminProcedure, router } from "../../trpc/index.js";
import { activateCohort, checkGates, createCohort, listCohorts, rollbackCohort } from "./cohorts.js";
import { activatePro, getProStatus, listActivePros, rollbackPro } from "./pros.js";
import { checkGatesInput, cohortIdInput, createCohortInput, proIdInput, rollbackCohortInput } from "./schemas.js";

export const restrictionRouter = router({
  createCohort: adminProcedure.input(createCohortInput).mutation(createCohort),
  listCohorts: adminProcedure.query(listCohorts),
  checkGates: adminProcedure.input(checkGatesInput).mutation(checkGates),
  activateCohort: adminProcedure.input(cohortIdInput).mutation(activateCohort),
  rollbackCohort: adminProcedure.input(rollbackCohortInput).mutation(rollbackCohort),
  listActive: adminProcedure.query(listActivePros),
  getPro: adminProcedure.input(proIdInput).query(getProStatus),
  activatePro: adminProcedure.input(proIdInput).mutation(activatePro),
  rollbackPro: adminProcedure.input(proIdInput).mutation(rollbackPro),
});
