// The live unread count over Server-Sent Events: GET /api/notifications/stream (docs/api.md#live-unread-count).
// On connect and after every change of the caller's unread count: `event: unread-count` with `{"count": N}`;
// a comment line every 15 s keeps proxies from closing an idle stream. The stream ends when its session
// ends (sign-out, revocation), when the session expires, and when the instance shuts down.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db, DbHandle } from "../../db/client.js";
import type { Context } from "../context.js";
import { AppError } from "../errors/errors.js";
import { heartbeat, startEventStream } from "../http/event-stream.js";
import { streamOpened } from "../observability/metrics.js";
import { sendError } from "../rest/errors.js";
import { countUnread } from "../routers/notifications/inbox.js";
import { createUnreadHub, type UnreadHub } from "./unread-hub.js";

export const STREAM_PATH = "/api/notifications/stream";
/** setTimeout's largest delay; a session expiring later is checked again when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const unreadCountEvent = (count: number) => `event: unread-count\ndata: ${JSON.stringify({ count })}\n\n`;

/**
 * The hub of this instance, fed by the database's NOTIFYs when `listen` is given (every instance on the
 * database hears every change); it closes every stream when the app closes.
 */
export async function createLiveUnreadCounts(
  app: FastifyInstance,
  deps: { db: Db; listen?: DbHandle["listen"]; maxStreamsPerUser: number },
): Promise<UnreadHub> {
  const hub = createUnreadHub({
    maxPerUser: deps.maxStreamsPerUser,
    countOf: (userId) => countUnread(deps.db, userId),
    onError: (err) => app.log.warn({ err }, "live unread count: reading a count failed"),
  });
  if (deps.listen) {
    const stops = [await deps.listen("unread_count", hub.userChanged), await deps.listen("session_ended", hub.sessionEnded)];
    app.addHook("onClose", async () => {
      await Promise.allSettled(stops.map((stop) => stop()));
    });
  }
  // Before Fastify waits for in-flight requests: an open stream would otherwise hold shutdown open.
  app.addHook("preClose", async () => hub.closeAll());
  return hub;
}

/** Calls `close` when the session expires (timers cannot wait longer than ~24.8 days, so it re-arms). */
export function onSessionExpiry(expiresAt: Date, close: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = expiresAt.getTime() - Date.now();
    timer = left <= 0 ? setTimeout(close, 0) : setTimeout(left > MAX_TIMER_MS ? arm : close, Math.min(left, MAX_TIMER_MS));
  };
  arm();
  return () => clearTimeout(timer);
}

export function registerUnreadCountStream(
  app: FastifyInstance,
  hub: UnreadHub,
  createContext: (request: FastifyRequest) => Promise<Context>,
): void {
  app.get(STREAM_PATH, async (request, reply) => {
    const ctx = await createContext(request);
    if (!ctx.user || !ctx.session) return sendError(reply, new AppError("UNAUTHORIZED", "Sign in to follow your unread count"));
    const { user, session } = ctx;
    // Following changes starts before the first count is read, so none falls between the two; what the hub
    // sends before the stream is open is held, and the newest of it goes first.
    let open = false;
    let ended = false;
    let heldCount: number | null = null;
    let stopHeartbeat = () => {};
    let cancelExpiry = () => {};
    const raw = reply.raw;
    const end = () => {
      if (ended) return;
      ended = true;
      stopHeartbeat();
      cancelExpiry();
      remove();
      if (open) raw.end();
    };
    const send = (count: number) => {
      if (open) raw.write(unreadCountEvent(count));
      else heldCount = count;
    };
    const remove = hub.add({ userId: user.id, sessionId: session.id, send, close: end });
    let first: number;
    try {
      first = await countUnread(ctx.db, user.id);
    } catch (err) {
      end();
      throw err;
    }
    if (ended) return sendError(reply, new AppError("UNAUTHORIZED", "The session has ended"));

    startEventStream(request, reply);
    // A reconnecting client waits 2 s, then resumes with the count as it is then.
    raw.write(`retry: 2000\n${unreadCountEvent(heldCount ?? first)}`);
    open = true;
    const counted = streamOpened();
    request.raw.once("close", counted);
    stopHeartbeat = heartbeat(raw);
    cancelExpiry = onSessionExpiry(session.expiresAt, end);
    request.raw.once("close", end);
  });
}
