// Taking over a request's connection as a Server-Sent Events stream: the live unread count
// (server/rest/unread-stream.ts) and OFREP's flag changes (server/ofrep/routes.ts) answer the same way.
import type { ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";

/** How often an idle stream sends a comment line, so proxies do not close it. */
export const HEARTBEAT_MS = 15_000;

/**
 * Answers 200 `text/event-stream` with the headers set so far (security headers, CORS) and hands the raw
 * connection to the caller: Fastify's own reply, and its hooks, are done with it from here.
 */
export function startEventStream(request: FastifyRequest, reply: FastifyReply): ServerResponse {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    // nginx and similar proxies would otherwise buffer the stream.
    "x-accel-buffering": "no",
    "x-request-id": request.id,
  });
  return raw;
}

/** Sends a keep-alive comment every HEARTBEAT_MS; returns the function that stops it. */
export function heartbeat(raw: ServerResponse): () => void {
  const timer = setInterval(() => raw.write(": keep-alive\n\n"), HEARTBEAT_MS);
  return () => clearInterval(timer);
}

/**
 * Calls `onLeave` once the client has gone: at once when it already has (it may leave while a handler awaits
 * the database), else at the connection's close. Returns the function that stops watching.
 */
export function onClientLeave(request: FastifyRequest, onLeave: () => void): () => void {
  const raw = request.raw;
  if (raw.destroyed) {
    onLeave();
    return () => {};
  }
  raw.once("close", onLeave);
  return () => raw.off("close", onLeave);
}
