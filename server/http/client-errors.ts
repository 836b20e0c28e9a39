// Requests Node's HTTP parser refuses before Fastify routes them (headers over --max-http-header-size, a
// malformed header or request line): Fastify's clientErrorHandler writes the answer on the bare socket, so
// it gets the service's envelope here like every other error (docs/api.md#errors), not Fastify's own body.
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { ConnectionError, FastifyInstance } from "fastify";
import type { ErrorKind } from "../errors/errors.js";

type Refusal = { status: number; code: ErrorKind; message: string };

/** What a parser error code answers (Node's codes: HPE_* from llhttp, ERR_HTTP_REQUEST_TIMEOUT). */
export function refusalOf(code: string | undefined): Refusal {
  if (code === "HPE_HEADER_OVERFLOW") return { status: 431, code: "PAYLOAD_TOO_LARGE", message: "The request's headers are too large" };
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return { status: 408, code: "VALIDATION_ERROR", message: "The request did not arrive in time" };
  return { status: 400, code: "VALIDATION_ERROR", message: "The request is not well-formed HTTP" };
}

/** The whole HTTP answer: the connection closes after it, since the parser cannot find the next request. */
export function rawAnswer({ status, code, message }: Refusal): string {
  const body = JSON.stringify({ success: false, error: { code, message } });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "X-Content-Type-Options: nosniff",
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** Fastify's `clientErrorHandler`, which Fastify calls with the instance as `this`. */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  // A reset peer, or a socket already gone: nobody to answer.
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  // A client's malformed request is no fault of ours: debug, where Fastify's own handler logs at trace.
  this.log.debug({ err }, "client error: request refused by the HTTP parser");
  // Node writes no answer when one is already under way on this socket (a response in progress): neither do we.
  if (socket.writable && !(socket as Socket & { _httpMessage?: unknown })._httpMessage) socket.end(rawAnswer(refusalOf(err.code)));
  else socket.destroy(err);
}
