// The REST door's side of the domain errors: the envelope (docs/api.md#envelope) (or its one bare exception) and the
// HTTP status, from whatever was thrown.
import type { FastifyBaseLogger, FastifyError, FastifyReply } from "fastify";
import { toAppError } from "./error-mapper.js";
import {
  AppError,
  type ErrorDetails,
  type ErrorKind,
  TooManyRequestsError,
  UnsupportedMediaTypeError,
  VapidNotConfiguredError,
} from "./errors.js";

export type ErrorBody = {
  success: false;
  error: { code: ErrorKind; message: string; details?: ErrorDetails };
};

export type RestError = { status: number; body: ErrorBody | { error: string }; headers: Record<string, string> };

/** The HTTP headers an error's answer carries, on either door: Retry-After when over a rate limit. */
export function errorHeaders(e: AppError): Record<string, string> {
  return e instanceof TooManyRequestsError ? { "retry-after": String(e.retryAfterSeconds) } : {};
}

export function toRestError(err: unknown): RestError {
  const e = toAppError(err);
  const headers = errorHeaders(e);
  if (e instanceof VapidNotConfiguredError) return { status: e.status, body: { error: e.message }, headers };
  const body: ErrorBody = { success: false, error: { code: e.kind, message: e.message } };
  if (e.details) body.error.details = e.details;
  return { status: e.status, body, headers };
}

/**
 * One error line for an answer of 500 or more, on either door. The status beside the cause: a 503 (the
 * database away) reads differently from a 500 (a fault of ours).
 */
export function logFailedAnswer(
  log: FastifyBaseLogger,
  status: number,
  fields: { err: unknown; path?: string },
  message = "request failed",
) {
  if (status >= 500) log.error({ ...fields, status }, message);
}

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body, headers } = toRestError(err);
  logFailedAnswer(reply.log, status, { err });
  return reply.status(status).headers(headers).send(body);
}

/** Fastify's own errors (body parsing, limits) as the kinds of docs/api.md#errors; anything else via toAppError. */
export function fromFastifyError(err: FastifyError): AppError {
  switch (err.statusCode) {
    case 413:
      return new AppError("PAYLOAD_TOO_LARGE", "Request body is too large");
    case 415:
      return new UnsupportedMediaTypeError();
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    const malformed = err instanceof SyntaxError || err.code === "FST_ERR_CTP_INVALID_JSON_BODY";
    return new AppError("VALIDATION_ERROR", malformed ? "Malformed JSON body" : err.message);
  }
  return toAppError(err);
}
