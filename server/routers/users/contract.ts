// The account procedures' public shapes (server/routers/contract.ts): kind, input, answer.
import { mutation, query } from "../contract.js";
import {
  impersonationOutput,
  impersonationStoppedOutput,
  sessionsEndedOutput,
  userAnswer,
  userChangeOutput,
  userListOutput,
} from "./outputs.js";
import { banUserInput, createUserInput, listUsersInput, setPasswordInput, setRoleInput, userIdInput } from "./schemas.js";

export const usersContract = {
  list: query(userListOutput, listUsersInput),
  create: mutation(userChangeOutput, createUserInput),
  setRole: mutation(userChangeOutput, setRoleInput),
  setPassword: mutation(userAnswer, setPasswordInput),
  ban: mutation(userAnswer, banUserInput),
  unban: mutation(userAnswer, userIdInput),
  revokeSessions: mutation(sessionsEndedOutput, userIdInput),
  remove: mutation(userAnswer, userIdInput),
  impersonate: mutation(impersonationOutput, userIdInput),
  stopImpersonating: mutation(impersonationStoppedOutput),
};
