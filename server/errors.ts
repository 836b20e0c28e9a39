// The one domain error type. Handlers throw AppError; it is mapped once to a tRPC code (here, in the
// table) and once to the REST envelope (toRestError). Anything else thrown is normalised by toAppError.
import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";

const kinds = {
  VALIDATION_ERROR: { status: 400, trpc: "BAD_REQUEST" },
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  CONFLICT: { status: 409, trpc: "CONFLICT" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  TOO_MANY_REQUESTS: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  INTERNAL_ERROR: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  SERVICE_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
} as const satisfies Record<string, { status: number; trpc: TRPCError["code"] }>;

export type ErrorKind = keyof typeof kinds;
export type FieldIssue = { field: string; message: string };

export class AppError extends TRPCError {
  readonly kind: ErrorKind;
  readonly details: FieldIssue[] | undefined;
  /** REST answers `{"error": message}` instead of the envelope (the one exception, docs/api.md#errors). */
  bare = false;
  /** The HTTP status when it is not the kind's own (a reused Idempotency-Key is a 422 VALIDATION_ERROR). */
  httpStatus: number | undefined;

  constructor(kind: ErrorKind, message: string, details?: FieldIssue[], cause?: unknown) {
    super({ code: kinds[kind].trpc, message, cause });
    this.name = "AppError";
    this.kind = kind;
    this.details = details;
  }

  get status(): number {
    return this.httpStatus ?? kinds[this.kind].status;
  }
}

export const notFound = (resource: "Cohort" | "Pro" | "Notification" | "User", id: string) =>
  new AppError("NOT_FOUND", `${resource} ${id} not found`);

export const validationError = (message: string, details?: FieldIssue[]) =>
  new AppError("VALIDATION_ERROR", message, details);

export const forbidden = (message = "Access denied") => new AppError("FORBIDDEN", message);

export function zodDetails(error: ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join(".") : "(body)",
    message: issue.message,
  }));
}

const GENERIC_INTERNAL = "Internal server error";
const GENERIC_UNAVAILABLE = "The database is unavailable; try again shortly";

// SQLSTATE classes and driver codes that mean "the database cannot be reached right now": connection
// failures, shutdowns, too many connections, a database that does not accept connections (55000 at
// connect) or is not there under its name (3D000), and refused credentials (28).
const UNAVAILABLE_SQLSTATES = /^(08|28|57P0[1-3]|53300|55000|3D000)/;
const UNAVAILABLE_DRIVER_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/** The innermost causes first: drizzle and tRPC both wrap the driver's error. */
function* causes(err: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current && !seen.has(current)) {
    seen.add(current);
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

export function isDatabaseUnavailable(err: unknown): boolean {
  for (const c of causes(err)) {
    const code = (c as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (UNAVAILABLE_DRIVER_CODES.has(code) || UNAVAILABLE_SQLSTATES.test(code)) return true;
  }
  return false;
}

/** The SQLSTATE of a PostgreSQL error anywhere in the cause chain, e.g. 23505 for a unique violation. */
export function sqlState(err: unknown): string | undefined {
  for (const c of causes(err)) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

const fromTrpcCode: Partial<Record<TRPCError["code"], ErrorKind>> = {
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

/** Anything thrown, as an AppError whose message is safe to show: no stack, SQL or driver text. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const zod = [...causes(err)].find((c): c is ZodError => c instanceof ZodError);
  if (zod) return validationError("Invalid input", zodDetails(zod));
  if (isDatabaseUnavailable(err)) return new AppError("SERVICE_UNAVAILABLE", GENERIC_UNAVAILABLE, undefined, err);
  const state = sqlState(err);
  if (state === "23505") return new AppError("CONFLICT", "The record already exists", undefined, err);
  // Text PostgreSQL cannot store (a NUL character, a bad escape) is the caller's input, not a fault.
  if (state === "22021" || state === "22P05") {
    return new AppError("VALIDATION_ERROR", "Input contains characters that cannot be stored", undefined, err);
  }
  if (err instanceof TRPCError) {
    const inner = err.cause instanceof AppError ? err.cause : undefined;
    if (inner) return inner;
    const kind = fromTrpcCode[err.code];
    if (kind) return new AppError(kind, err.message, undefined, err);
  }
  return new AppError("INTERNAL_ERROR", GENERIC_INTERNAL, undefined, err);
}

/** The one error answered without the envelope (docs/api.md#errors). */
export function vapidNotConfigured(): AppError {
  const error = new AppError("INTERNAL_ERROR", "VAPID not configured");
  error.bare = true;
  return error;
}

export type ErrorBody = {
  success: false;
  error: { code: ErrorKind; message: string; details?: FieldIssue[] };
};

/** The REST envelope of an error, and its HTTP status. */
export function toRestError(err: unknown): { status: number; body: ErrorBody | { error: string } } {
  const e = toAppError(err);
  if (e.bare) return { status: e.status, body: { error: e.message } };
  const body: ErrorBody = { success: false, error: { code: e.kind, message: e.message } };
  if (e.details) body.error.details = e.details;
  return { status: e.status, body };
}
