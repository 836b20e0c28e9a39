// Following a NOTIFY channel (server/live/change-feed.ts): postgres.js re-queues a LISTEN at each failed
// reconnection attempt and runs them all once one succeeds, so one reconnection can call back many times.
// Those calls are one catch-up and one counted reconnect; a re-listen during a catch-up brings one more read.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DbHandle } from "../../db/client.js";
import { followChannel } from "../../server/live/change-feed.js";
import { dbListenReconnects } from "../../server/observability/metrics.js";

/** A listen() whose re-listens the test calls. */
function fakeListen() {
  let relisten = () => {};
  const listen: DbHandle["listen"] = async (_channel, _onPayload, onRelisten) => {
    relisten = onRelisten ?? (() => {});
    return async () => {};
  };
  return { listen, relisten: () => relisten() };
}

const counted = async (channel: string) => (await dbListenReconnects.get()).values.find((v) => v.labels.channel === channel)?.value ?? 0;

describe("followChannel", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("gathers the burst of re-listens of one reconnection into one catch-up, counted once", async () => {
    const feed = fakeListen();
    const catchUp = vi.fn(async () => {});
    await followChannel(feed.listen, "burst_channel", { onPayload: () => {}, catchUp, onError: () => {} });
    const before = await counted("burst_channel");
    for (let i = 0; i < 7; i++) feed.relisten();
    await vi.runAllTimersAsync();
    expect({ catchUps: catchUp.mock.calls.length, counted: (await counted("burst_channel")) - before }).toEqual({
      catchUps: 1,
      counted: 1,
    });
  });

  it("reads once more when listening resumes again during a catch-up", async () => {
    const feed = fakeListen();
    let finish = () => {};
    const catchUp = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    await followChannel(feed.listen, "again_channel", { onPayload: () => {}, catchUp, onError: () => {} });
    feed.relisten();
    await vi.advanceTimersByTimeAsync(100);
    expect(catchUp).toHaveBeenCalledTimes(1);
    feed.relisten();
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(catchUp).toHaveBeenCalledTimes(2);
    finish();
    await vi.runAllTimersAsync();
    expect(catchUp).toHaveBeenCalledTimes(2);
  });

  it("hands a failed catch-up to onError", async () => {
    const feed = fakeListen();
    const failure = new Error("database unreachable");
    const onError = vi.fn();
    await followChannel(feed.listen, "error_channel", { onPayload: () => {}, catchUp: async () => Promise.reject(failure), onError });
    feed.relisten();
    await vi.runAllTimersAsync();
    expect(onError).toHaveBeenCalledWith(failure);
  });
});
