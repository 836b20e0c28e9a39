// The domain's errors: plain Error classes that know nothing of tRPC or HTTP framing. Handlers and
// middleware throw them; toAppError (error-mapper.ts) turns anything else thrown into one, and each door
// converts them once: to a TRPCError in the procedure chain (trpc/errors.ts), to the REST envelope in the
// adapter (rest/errors.ts).
import type { ZodError } from "zod";

/** Each kind of error and the HTTP status it answers with (REST, and httpStatus in tRPC's error data). */
const STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorKind = keyof typeof STATUS;
export type FieldIssue = { field: string; message: string };
/** A 503 whose write may have committed: its COMMIT was sent and no answer came (docs/guarantees.md). */
export type OutcomeDetails = { outcome: "unknown" };
export type ErrorDetails = FieldIssue[] | OutcomeDetails;

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details?: ErrorDetails,
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = new.target.name;
  }

  get status(): number {
    return STATUS[this.kind];
  }
}

/** How to turn push on (docs/api.md#web-push-keys), each variable with what to put in it. */
export const VAPID_SETUP: FieldIssue[] = [
  { field: "VAPID_PUBLIC_KEY", message: "not set: the public key that `npx web-push generate-vapid-keys` prints" },
  { field: "VAPID_PRIVATE_KEY", message: "not set: the private key it prints with it" },
  {
    field: "VAPID_SUBJECT",
    message: "a mailto: or https: URL where push services can reach you; then restart the service (docs/api.md#web-push-keys)",
  },
];

/**
 * The one exception (docs/api.md#errors): on REST it answers HTTP 500 with the bare body `{"error": "VAPID not
 * configured"}`, which the contract fixes word for word; tRPC's error also carries how to set the keys, in
 * its details.
 */
export class VapidNotConfiguredError extends AppError {
  constructor() {
    super("INTERNAL_ERROR", "VAPID not configured", VAPID_SETUP);
  }
}

/** An Idempotency-Key used again with another request: a VALIDATION_ERROR answered with 422. */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super("VALIDATION_ERROR", "Idempotency-Key was used with a different request", [
      { field: "Idempotency-Key", message: "already used with another method, path or body" },
    ]);
  }

  override get status(): number {
    return 422;
  }
}

/**
 * A request whose body is not JSON (a form, multipart, text): a VALIDATION_ERROR answered with 415, so the
 * contract's codes stay as they are and the status says precisely what is wrong.
 */
export class UnsupportedMediaTypeError extends AppError {
  constructor(message = "Unsupported Content-Type: send application/json") {
    super("VALIDATION_ERROR", message);
  }

  override get status(): number {
    return 415;
  }
}

/** A method the path does not take (a tRPC mutation over GET): a VALIDATION_ERROR answered with 405. */
export class MethodNotAllowedError extends AppError {
  constructor(message: string) {
    super("VALIDATION_ERROR", message);
  }

  override get status(): number {
    return 405;
  }
}

/** Over a rate limit: 429, and an answer that says when to try again. */
export class TooManyRequestsError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message = "Too many requests; try again later",
  ) {
    super("TOO_MANY_REQUESTS", message);
  }
}

export const notFound = (resource: "Cohort" | "Pro" | "Notification" | "User" | "API key", id: string) =>
  new AppError("NOT_FOUND", `${resource} ${id} not found`);

export const validationError = (message: string, details?: FieldIssue[]) => new AppError("VALIDATION_ERROR", message, details);

export const forbidden = (message = "Access denied") => new AppError("FORBIDDEN", message);

export function zodDetails(error: Pick<ZodError, "issues">): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join(".") : "(body)",
    message: issue.message,
  }));
}
