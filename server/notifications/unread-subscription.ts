// The live unread count as a tRPC subscription (notifications.onUnreadCount, over SSE with tRPC's
// httpSubscriptionLink): the same events as GET /api/notifications/stream, from the same hub.

import type { AuthedContext } from "../context.js";
import { AppError } from "../errors/errors.js";
import { onSessionExpiry } from "../live/session-expiry.js";
import { streamOpened } from "../observability/metrics.js";
import { countUnread } from "./inbox.js";

export async function* unreadCountEvents({ ctx, signal }: { ctx: AuthedContext; signal: AbortSignal | undefined }) {
  const hub = ctx.live;
  if (!hub) throw new AppError("SERVICE_UNAVAILABLE", "Live counts are served over HTTP only");
  let latest: number | null = null;
  let closed = false;
  let wake = () => {};
  const stop = () => {
    closed = true;
    wake();
  };
  // Following starts before the first read, as in the REST stream, so no change falls between the two.
  const remove = hub.add({
    userId: ctx.user.id,
    sessionId: ctx.session.id,
    send: (count) => {
      latest = count;
      wake();
    },
    close: stop,
  });
  const cancelExpiry = onSessionExpiry(ctx.session.expiresAt, stop);
  signal?.addEventListener("abort", stop);
  if (signal?.aborted) stop();
  const counted = streamOpened();
  try {
    const first = await countUnread(ctx.db, ctx.user.id);
    // Taken before the yield: the generator waits there until the client has the event, and a change that
    // arrives meanwhile must be the next event, not be cleared.
    let sent: number = latest ?? first;
    latest = null;
    if (closed) return;
    yield { count: sent };
    while (!closed) {
      if (latest === null) await new Promise<void>((resolve) => (wake = resolve));
      // Only the newest count matters to a badge: counts that arrived while the client was slow are skipped,
      // and one equal to the last sent (the catch-up after a gap in listening reads every count) too.
      if (latest !== null && !closed) {
        const count: number = latest;
        latest = null;
        if (count !== sent) {
          sent = count;
          yield { count };
        }
      }
    }
  } finally {
    counted();
    remove();
    cancelExpiry();
    signal?.removeEventListener("abort", stop);
  }
}
