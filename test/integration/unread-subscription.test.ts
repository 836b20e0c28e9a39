// The tRPC door of the live unread count (notifications.onUnreadCount, server/notifications/unread-subscription.ts) keeps
// every change as the SSE door does: a count that arrives while the client still holds the previous event
// is the next event (only the newest count of a burst matters to a badge), never dropped.
import { describe, expect, it } from "vitest";
import type { AuthedContext } from "../../server/context.js";
import { createContextInner } from "../../server/context.js";
import type { UnreadHub } from "../../server/live/unread-hub.js";
import { unreadCountEvents } from "../../server/notifications/unread-subscription.js";
import { useTestApp } from "../helpers/app.js";
import { openSse, type SseStream } from "../helpers/sse.js";

type Sink = { send(count: number): void; close(): void };

/** A hub that hands the test the stream's sink, so the test decides when changes arrive. */
function handHeldHub() {
  let sink: Sink | null = null;
  const hub = {
    add: (s: Sink) => {
      sink = s;
      return () => {
        sink = null;
      };
    },
  } as unknown as UnreadHub;
  return { hub, sink: () => sink! };
}

/** Whether `promise` settles before the timers run, i.e. without waiting for anything outside. */
const settlesNow = <T>(promise: Promise<T>) =>
  Promise.race([promise, new Promise<"still waiting">((resolve) => setTimeout(resolve, 0, "still waiting"))]);

describe("notifications.onUnreadCount", () => {
  const t = useTestApp({ limits: { streamsPerUser: 2 } });

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

  it("counts against STREAMS_PER_USER with the SSE door: past the cap a stream is refused with 429 and Retry-After", async () => {
    const base = await t().app.listen({ port: 0, host: "127.0.0.1" });
    const [user, other] = [await t().signUp(), await t().signUp()];
    const opened: SseStream[] = [];
    try {
      opened.push(await openSse(`${base}/api/notifications/stream`, user.headers));
      opened.push(await openSse(`${base}/trpc/notifications.onUnreadCount`, user.headers));
      expect(opened.map((s) => s.status)).toEqual([200, 200]);
      await opened[0]!.next(1_000);

      const refused = await fetch(`${base}/api/notifications/stream`, { headers: user.headers });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(await refused.json()).toMatchObject({ success: false, error: { code: "TOO_MANY_REQUESTS" } });
      // Over tRPC the refusal is the subscription's error, with the same code.
      const overTrpc = await openSse(`${base}/trpc/notifications.onUnreadCount`, user.headers);
      opened.push(overTrpc);
      const events = [await overTrpc.next(1_000), await overTrpc.next(1_000)];
      expect(events.map((e) => e.event)).toEqual(["connected", "serialized-error"]);
      expect(events[1]!.data).toContain("TOO_MANY_REQUESTS");

      // The cap is per user, and a closed stream frees its place.
      opened.push(await openSse(`${base}/api/notifications/stream`, other.headers));
      expect(opened.at(-1)!.status).toBe(200);
      opened[0]!.close();
      await expect
        .poll(async () => {
          const again = await fetch(`${base}/api/notifications/stream`, { headers: user.headers });
          void again.body?.cancel();
          return again.status;
        })
        .toBe(200);
    } finally {
      for (const s of opened) s.close();
    }
  });
});
