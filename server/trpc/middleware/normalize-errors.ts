import { toAppError } from "../../errors/error-mapper.js";
import { ProcedureError } from "../../errors/trpc.js";
import { t } from "../init.js";

/**
 * Turns whatever a procedure threw (input validation, a driver error, a bug, an AppError) into one
 * ProcedureError, so the tRPC status and the REST envelope come from the same mapping.
 */
export const normalizeErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw new ProcedureError(toAppError(result.error));
  return result;
});
