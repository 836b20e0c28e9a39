import { toAppError } from "../../errors/error-mapper.js";
import { ProcedureError } from "../../errors/trpc.js";

/**
 * Turns whatever a procedure threw (input validation, a driver error, a bug, an AppError) into one
 * ProcedureError, so the tRPC status and the REST envelope come from the same mapping. Run by every-call.ts.
 */
export function normalizedResult<Result extends { ok: true } | { ok: false; error: unknown }>(result: Result): Result & { ok: true } {
  if (!result.ok) throw new ProcedureError(toAppError(result.error));
  return result as Result & { ok: true };
}
