// Anything thrown, as an AppError whose message is safe to show: the one mapping behind the answers of
// both doors (REST and tRPC) and of Fastify's own errors.
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { causes, isDatabaseUnavailable, isOutcomeUnknown, sqlState } from "../../db/errors.js";
import { AppError, MethodNotAllowedError, UnsupportedMediaTypeError, validationError, zodDetails } from "./errors.js";
import { kindOfTRPCCode } from "./trpc.js";

const GENERIC_INTERNAL = "Internal server error";
const GENERIC_UNAVAILABLE = "The database is unavailable; try again shortly";
const CONCURRENT_CHANGE = "A concurrent change got in the way and nothing was written; send the request again";
const OUTCOME_UNKNOWN =
  "The database connection was lost while the change was being committed: it may have been applied. Retry with the same Idempotency-Key to learn which";

/** No stack, SQL or driver text: an unknown failure is a 500 with a generic message (the cause keeps the rest). */
export function toAppError(err: unknown): AppError {
  // An AppError is already a decision; tRPC hands it over wrapped in a TRPCError.
  for (const c of causes(err)) {
    if (c instanceof AppError) return c;
    if (c instanceof ZodError) return validationError("Invalid input", zodDetails(c));
  }
  if (isOutcomeUnknown(err)) return new AppError("SERVICE_UNAVAILABLE", OUTCOME_UNKNOWN, { outcome: "unknown" }, err);
  if (isDatabaseUnavailable(err)) return new AppError("SERVICE_UNAVAILABLE", GENERIC_UNAVAILABLE, undefined, err);
  const state = sqlState(err);
  // A deadlock or a serialization failure: PostgreSQL rolled the whole transaction back, so nothing was
  // written, and the same request sent again succeeds.
  if (state === "40P01" || state === "40001") return new AppError("SERVICE_UNAVAILABLE", CONCURRENT_CHANGE, undefined, err);
  if (state === "23505") return new AppError("CONFLICT", "The record already exists", undefined, err);
  // Text PostgreSQL cannot store (a NUL character, a bad escape) is the caller's input, not a fault.
  if (state === "22021" || state === "22P05") {
    return new AppError("VALIDATION_ERROR", "Input contains characters that cannot be stored", undefined, err);
  }
  if (err instanceof TRPCError) {
    // A client's mistakes in calling tRPC (a mutation over GET, a body that is not JSON), not faults of ours.
    if (err.code === "METHOD_NOT_SUPPORTED") return new MethodNotAllowedError(err.message);
    if (err.code === "UNSUPPORTED_MEDIA_TYPE") return new UnsupportedMediaTypeError(err.message);
    const kind = kindOfTRPCCode(err.code);
    if (kind) return new AppError(kind, err.message, undefined, err);
  }
  return new AppError("INTERNAL_ERROR", GENERIC_INTERNAL, undefined, err);
}
