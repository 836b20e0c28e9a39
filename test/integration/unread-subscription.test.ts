// The tRPC door of the live unread count (notifications.onUnreadCount, server/live/subscription.ts) keeps
// every change as the SSE door does: a count that arrives while the client still holds the previous event
// is the next event (only the newest count of a burst matters to a badge), never dropped.
import { describe, expect, it } from "vitest";
import type { UnreadHub } from "../../server/live/unread-hub.js";
import { unreadCountEvents } from "../../server/live/subscription.js";
import type { AuthedContext } from "../../server/routers/types.js";
import { createContextInner } from "../../server/context.js";
import { useTestApp } from "../helpers/app.js";

type Sink = { send(count: number): void; close(): void };

/** A hub that hands the test the stream's sink, so the test decides when changes arrive. */
function handHeldHub() {
  let sink: Sink | null = null;
  const hub = { add: (s: Sink) => ((sink = s), () => (sink = null)) } as unknown as UnreadHub;
  return { hub, sink: () => sink! };
}

/** Whether `promise` settles before the timers run, i.e. without waiting for anything outside. */
const settlesNow = <T>(promise: Promise<T>) =>
  Promise.race([promise, new Promise<"still waiting">((resolve) => setTimeout(resolve, 0, "still waiting"))]);

describe("notifications.onUnreadCount", () => {
  const t = useTestApp();

  it("sends the newest count of a burst that arrived while the client held the first event", async () => {
    const user = await t().signUp();
    const { hub, sink } = handHeldHub();
    const ctx = createContextInner({ db: t().db.db, push: t().push, live: hub }, { user }) as AuthedContext;
    const abort = new AbortController();
    const events = unreadCountEvents({ ctx, signal: abort.signal });

    expect((await events.next()).value).toEqual({ count: 0 });
    // The client has not asked for the next event yet: five changes come in.
    for (const count of [1, 2, 3, 4, 5]) sink().send(count);
    expect(await settlesNow(events.next())).toEqual({ value: { count: 5 }, done: false });

    // And the stream goes on following.
    const next = events.next();
    sink().send(4);
    expect(await settlesNow(next)).toEqual({ value: { count: 4 }, done: false });
    abort.abort();
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });
});
