// Anything thrown, as an AppError whose message is safe to show: the one mapping behind the answers of
// both doors (REST and tRPC) and of Fastify's own errors.
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { causes, isDatabaseUnavailable, sqlState } from "../db/errors.js";
import { AppError, validationError, zodDetails, type ErrorKind } from "./errors.js";

const GENERIC_INTERNAL = "Internal server error";
const GENERIC_UNAVAILABLE = "The database is unavailable; try again shortly";

/** tRPC's own errors (a malformed /trpc request, an unknown procedure) by code; any other code is a 500. */
const KIND_OF_TRPC_CODE: Partial<Record<TRPCError["code"], ErrorKind>> = {
  BAD_REQUEST: "VALIDATION_ERROR",
  PARSE_ERROR: "VALIDATION_ERROR",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
};

/** No stack, SQL or driver text: an unknown failure is a 500 with a generic message (the cause keeps the rest). */
export function toAppError(err: unknown): AppError {
  // An AppError is already a decision; tRPC hands it over wrapped in a TRPCError.
  for (const c of causes(err)) {
    if (c instanceof AppError) return c;
    if (c instanceof ZodError) return validationError("Invalid input", zodDetails(c));
  }
  if (isDatabaseUnavailable(err)) return new AppError("SERVICE_UNAVAILABLE", GENERIC_UNAVAILABLE, undefined, err);
  const state = sqlState(err);
  if (state === "23505") return new AppError("CONFLICT", "The record already exists", undefined, err);
  // Text PostgreSQL cannot store (a NUL character, a bad escape) is the caller's input, not a fault.
  if (state === "22021" || state === "22P05") {
    return new AppError("VALIDATION_ERROR", "Input contains characters that cannot be stored", undefined, err);
  }
  if (err instanceof TRPCError) {
    const kind = KIND_OF_TRPC_CODE[err.code];
    if (kind) return new AppError(kind, err.message, undefined, err);
  }
  return new AppError("INTERNAL_ERROR", GENERIC_INTERNAL, undefined, err);
}
