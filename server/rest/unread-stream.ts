// The live unread count over Server-Sent Events: GET /api/notifications/stream (docs/api.md#live-unread-count).
// On connect and after every change of the caller's unread count: `event: unread-count` with `{"count": N}`;
// a comment line every 15 s keeps proxies from closing an idle stream. The stream ends when its session
// ends (sign-out, revocation), when the session expires, and when the instance shuts down.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db, DbHandle } from "../../db/client.js";
import { sessionsStillOpen } from "../auth/session.js";
import type { Context } from "../context.js";
import { AppError } from "../errors/errors.js";
import { sendError } from "../errors/rest.js";
import { heartbeat, onClientLeave, startEventStream } from "../http/event-stream.js";
import type { NowOrLater } from "../http/now-or-later.js";
import { followChannel } from "../live/change-feed.js";
import { onSessionExpiry } from "../live/session-expiry.js";
import { createUnreadHub, type UnreadHub } from "../live/unread-hub.js";
import { countUnread } from "../notifications/inbox.js";
import { streamOpened } from "../observability/metrics.js";

export const STREAM_PATH = "/api/notifications/stream";

export const unreadCountEvent = (count: number) => `event: unread-count\ndata: ${JSON.stringify({ count })}\n\n`;

/**
 * The hub of this instance, fed by the database's NOTIFYs when `listen` is given (every instance on the
 * database hears every change); after a gap in listening, every open stream's count is read again and the
 * streams of sessions that ended meanwhile close. It closes every stream when the app closes.
 */
export async function createLiveUnreadCounts(
  app: FastifyInstance,
  deps: { db: Db; listen?: DbHandle["listen"]; maxStreamsPerUser: number },
): Promise<UnreadHub> {
  const onError = (err: unknown) => app.log.warn({ err }, "live unread count: reading a count failed");
  const hub = createUnreadHub({
    maxPerUser: deps.maxStreamsPerUser,
    countOf: (userId) => countUnread(deps.db, userId),
    openSessions: (ids) => sessionsStillOpen(deps.db, ids),
    onError,
  });
  if (deps.listen) {
    const stops = [
      await followChannel(deps.listen, "unread_count", { onPayload: hub.userChanged, catchUp: async () => hub.recount(), onError }),
      await followChannel(deps.listen, "session_ended", { onPayload: hub.sessionEnded, catchUp: hub.recheckSessions, onError }),
    ];
    app.addHook("onClose", async () => {
      await Promise.allSettled(stops.map((stop) => stop()));
    });
  }
  // Before Fastify waits for in-flight requests: an open stream would otherwise hold shutdown open.
  app.addHook("preClose", async () => hub.closeAll());
  return hub;
}

export function registerUnreadCountStream(
  app: FastifyInstance,
  hub: UnreadHub,
  createContext: (request: FastifyRequest) => NowOrLater<Context>,
): void {
  app.get(STREAM_PATH, async (request, reply) => {
    const ctx = await createContext(request);
    if (!ctx.user || !ctx.session) return sendError(reply, new AppError("UNAUTHORIZED", "Sign in to follow your unread count"));
    const { user, session } = ctx;
    // Following changes starts before the first count is read, so none falls between the two; what the hub
    // sends before the stream is open is held, and the newest of it goes first. A count equal to the last
    // one sent is not sent again (the catch-up after a gap in listening reads every count).
    let open = false;
    let ended = false;
    let left = false;
    let heldCount: number | null = null;
    let lastSent: number | null = null;
    let remove = () => {};
    let stopHeartbeat = () => {};
    let cancelExpiry = () => {};
    let counted = () => {};
    let stopWatching = () => {};
    const raw = reply.raw;
    const end = () => {
      if (ended) return;
      ended = true;
      stopWatching();
      stopHeartbeat();
      cancelExpiry();
      counted();
      remove();
      if (open) raw.end();
    };
    const send = (count: number) => {
      if (!open) heldCount = count;
      else if (count !== lastSent) {
        lastSent = count;
        raw.write(unreadCountEvent(count));
      }
    };
    // The client may leave at any moment, the first read included: whatever is set up by then is freed.
    stopWatching = onClientLeave(request, () => {
      left = true;
      end();
    });
    if (left) return reply.hijack();
    try {
      remove = hub.add({ userId: user.id, sessionId: session.id, send, close: end });
    } catch (err) {
      end();
      throw err;
    }
    let first: number;
    try {
      first = await countUnread(ctx.db, user.id);
    } catch (err) {
      end();
      throw err;
    }
    // Nobody is there to answer.
    if (left) return reply.hijack();
    if (ended) return sendError(reply, new AppError("UNAUTHORIZED", "The session has ended"));

    startEventStream(request, reply);
    lastSent = heldCount ?? first;
    // A reconnecting client waits 2 s, then resumes with the count as it is then.
    raw.write(`retry: 2000\n${unreadCountEvent(lastSent)}`);
    open = true;
    counted = streamOpened();
    stopHeartbeat = heartbeat(raw);
    cancelExpiry = onSessionExpiry(session.expiresAt, end);
  });
}
