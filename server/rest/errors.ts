// The REST door's side of the domain errors: the contract's envelope (or its one bare exception) and the
// HTTP status, from whatever was thrown.
import type { FastifyReply } from "fastify";
import { toAppError } from "../error-mapper.js";
import { VapidNotConfiguredError, type ErrorKind, type FieldIssue } from "../errors.js";

export type ErrorBody = {
  success: false;
  error: { code: ErrorKind; message: string; details?: FieldIssue[] };
};

export type RestError = { status: number; body: ErrorBody | { error: string } };

export function toRestError(err: unknown): RestError {
  const e = toAppError(err);
  if (e instanceof VapidNotConfiguredError) return { status: e.status, body: { error: e.message } };
  const body: ErrorBody = { success: false, error: { code: e.kind, message: e.message } };
  if (e.details) body.error.details = e.details;
  return { status: e.status, body };
}

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body } = toRestError(err);
  if (status >= 500) reply.log.error({ err }, "request failed");
  return reply.status(status).send(body);
}
