import { toAppError } from "../../errors.js";
import { t } from "../init.js";

/**
 * Turns whatever a procedure threw (input validation, a driver error, a bug) into an AppError, so the
 * tRPC status and the REST envelope come from the same mapping.
 */
export const normalizeErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toAppError(result.error);
  return result;
});
