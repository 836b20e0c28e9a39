// The tRPC door's side of the domain errors: normalizeErrors turns every failure of a procedure into a
// ProcedureError, once; the error formatter (init.ts) reads the AppError back through toAppError, which
// also reads tRPC's own errors by their code (kindOfTRPCCode).
import { TRPCError } from "@trpc/server";
import type { AppError, ErrorDetails, ErrorKind } from "./errors.js";

const TRPC_CODE = {
  VALIDATION_ERROR: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  TOO_MANY_REQUESTS: "TOO_MANY_REQUESTS",
  INTERNAL_ERROR: "INTERNAL_SERVER_ERROR",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
} as const satisfies Record<ErrorKind, TRPCError["code"]>;

/**
 * The kind one of tRPC's own errors (a malformed /trpc request, an unknown procedure) stands for, where its
 * message may be shown; undefined for INTERNAL_SERVER_ERROR and the codes no kind has (a generic 500).
 */
export function kindOfTRPCCode(code: TRPCError["code"]): ErrorKind | undefined {
  if (code === "PARSE_ERROR") return "VALIDATION_ERROR";
  const kind = (Object.keys(TRPC_CODE) as ErrorKind[]).find((k) => TRPC_CODE[k] === code);
  return kind === "INTERNAL_ERROR" ? undefined : kind;
}

/**
 * What a procedure fails with: the tRPC code and message of the AppError it carries as its cause, and that
 * error's kind and field details for server-side callers (createCaller), which get this error as thrown.
 */
export class ProcedureError extends TRPCError {
  readonly kind: ErrorKind;
  readonly details: ErrorDetails | undefined;

  constructor(appError: AppError) {
    super({ code: TRPC_CODE[appError.kind], message: appError.message, cause: appError });
    this.kind = appError.kind;
    this.details = appError.details;
  }
}
