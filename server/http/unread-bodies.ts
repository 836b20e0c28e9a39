// An answer given before the request's body has arrived (413 over the body limit, 415 for a body that is
// not JSON, 401 to an upload without a session): the client is often still sending. Closing a socket that
// still has unread data makes the kernel reset it, and under load clients saw their upload fail with EPIPE
// or ECONNRESET before they could read the 413 (issue K). Such an answer therefore waits until the rest of
// the body has been read and dropped, within bounds, and is then sent on a connection that closes cleanly
// or stays open; past the bounds it is sent at once.
import type { FastifyInstance, FastifyRequest } from "fastify";

/** How much of an answered request's body is read and dropped, and for how long, before answering anyway. */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 10_000;

/** Resolves once the request's body has ended, or the bounds are reached. */
function drain(request: FastifyRequest): Promise<void> {
  const raw = request.raw;
  return new Promise((resolve) => {
    let drained = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off("data", count);
      raw.off("end", done);
      raw.off("close", done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > DRAIN_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    raw.on("data", count);
    raw.once("end", done);
    raw.once("close", done);
    raw.resume();
  });
}

export function registerUnreadBodyDrain(app: FastifyInstance): void {
  // A callback hook: every answer passes here, and only the rare early one waits.
  app.addHook("onSend", (request, _reply, payload, done) => {
    // `complete` is false only while a body is still arriving (app.inject's requests have none to wait for).
    if (request.raw.complete !== false || request.raw.readableEnded) return done(null, payload);
    void drain(request).then(() => done(null, payload));
  });
}
