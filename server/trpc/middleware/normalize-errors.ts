import { toAppError } from "../../errors/error-mapper.js";
import { ProcedureError } from "../../errors/trpc.js";

/** Anything thrown, as the one ProcedureError both doors convert. */
export const procedureError = (err: unknown) => new ProcedureError(toAppError(err));

/**
 * Turns whatever a procedure threw (input validation, a driver error, a bug, an AppError) into one
 * ProcedureError, so the tRPC status and the REST envelope come from the same mapping. Run by every-call.ts.
 */
// Returns the result's own type: tRPC reads a middleware's context overrides from it, which a narrowed
// type (`& { ok: true }`) loses.
export function normalizedResult<Result extends { ok: true } | { ok: false; error: unknown }>(result: Result): Result {
  if (!result.ok) throw procedureError(result.error);
  return result;
}
