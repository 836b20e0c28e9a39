import { describe, expect, it } from "vitest";
import { createUnreadHub, TooManyStreamsError, type UnreadSink } from "../../server/live/unread-hub.js";

function sink(userId: string, sessionId = `s-${userId}`) {
  const got: number[] = [];
  let closed = false;
  const s: UnreadSink = {
    userId,
    sessionId,
    send: (n) => void got.push(n),
    close: () => {
      closed = true;
    },
  };
  return { s, got, closed: () => closed };
}

/** A count source whose reads wait until released, counting how many were made. */
function slowCounts(start = 0) {
  let value = start;
  let reads = 0;
  const waiting: (() => void)[] = [];
  return {
    set: (n: number) => {
      value = n;
    },
    get reads() {
      return reads;
    },
    release: () => {
      for (const go of waiting.splice(0)) go();
    },
    countOf: () => {
      reads++;
      return new Promise<number>((resolve) => waiting.push(() => resolve(value)));
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("unread hub", () => {
  it("sends a changed user's count to each of their streams, and nothing to anyone else", async () => {
    const counts = slowCounts(3);
    const hub = createUnreadHub(counts);
    const [a1, a2, b] = [sink("a"), sink("a", "s2"), sink("b")];
    for (const x of [a1, a2, b]) hub.add(x.s);
    hub.userChanged("a");
    hub.userChanged("nobody");
    counts.release();
    await tick();
    expect([a1.got, a2.got, b.got]).toEqual([[3], [3], []]);
    expect(counts.reads).toBe(1);
  });

  it("coalesces a burst: changes during a read cost one more read, not one each", async () => {
    const counts = slowCounts(1);
    const hub = createUnreadHub(counts);
    const a = sink("a");
    hub.add(a.s);
    hub.userChanged("a");
    for (let i = 0; i < 10; i++) hub.userChanged("a");
    counts.set(7);
    counts.release();
    await tick();
    counts.release();
    await tick();
    expect(counts.reads).toBe(2);
    expect(a.got).toEqual([7, 7]);
  });

  it("closes the streams of an ended session and, on shutdown, every stream", () => {
    const hub = createUnreadHub(slowCounts());
    const [a, other, b] = [sink("a", "gone"), sink("a", "kept"), sink("b")];
    for (const x of [a, other, b]) hub.add(x.s);
    expect(hub.openStreams).toBe(3);
    hub.sessionEnded("gone");
    expect([a.closed(), other.closed(), b.closed()]).toEqual([true, false, false]);
    expect(hub.openStreams).toBe(2);
    hub.closeAll();
    expect([other.closed(), b.closed()]).toEqual([true, true]);
    expect(hub.openStreams).toBe(0);
  });

  it("stops delivering to a removed stream, and reports a failed read without throwing", async () => {
    const errors: unknown[] = [];
    const hub = createUnreadHub({ countOf: async () => Promise.reject(new Error("down")), onError: (e) => void errors.push(e) });
    const a = sink("a");
    const remove = hub.add(a.s);
    hub.userChanged("a");
    await tick();
    expect(errors).toHaveLength(1);
    remove();
    expect(hub.openStreams).toBe(0);
    hub.userChanged("a");
    await tick();
    expect(errors).toHaveLength(1);
  });

  it("refuses a user's stream past the cap with 429 and Retry-After, and takes one again once one closed", () => {
    const hub = createUnreadHub({ ...slowCounts(), maxPerUser: 2 });
    const removeFirst = hub.add(sink("a").s);
    hub.add(sink("a", "s2").s);
    let refused: unknown;
    try {
      hub.add(sink("a", "s3").s);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(TooManyStreamsError);
    expect(refused).toMatchObject({ status: 429, retryAfterSeconds: 5 });
    // Another user is not counted against this one; a closed stream frees its place.
    hub.add(sink("b").s);
    removeFirst();
    hub.add(sink("a", "s4").s);
    expect(hub.openStreams).toBe(3);
  });

  it("after a gap in the change feed, reads every followed user's count again and closes the streams of sessions gone", async () => {
    const counts = slowCounts(4);
    const checked: string[][] = [];
    const hub = createUnreadHub({
      countOf: counts.countOf,
      openSessions: async (ids) => {
        checked.push(ids);
        return new Set(["s-alice"]);
      },
    });
    const [alice, bob] = [sink("alice"), sink("bob")];
    hub.add(alice.s);
    hub.add(bob.s);

    hub.recount();
    expect(counts.reads).toBe(2);
    counts.release();
    await tick();
    expect([alice.got, bob.got]).toEqual([[4], [4]]);

    await hub.recheckSessions();
    expect(checked).toEqual([["s-alice", "s-bob"]]);
    expect({ alice: alice.closed(), bob: bob.closed(), open: hub.openStreams }).toEqual({ alice: false, bob: true, open: 1 });
  });

  it("asks nothing after a gap when no stream is open", async () => {
    let asked = false;
    const hub = createUnreadHub({
      countOf: async () => 0,
      openSessions: async () => {
        asked = true;
        return new Set();
      },
    });
    hub.recount();
    await hub.recheckSessions();
    expect(asked).toBe(false);
  });
});
