// The relay's pace (db/outbox-relay.ts pauseBeforeNextPoll): quick while changes flow, slower once only
// memory's heartbeats have come for a while, so an idle instance does not pay for 50 round trips a second.
import { describe, expect, it } from "vitest";
import { pauseBeforeNextPoll } from "../../db/outbox-relay.js";
import { DEFAULT_RELAY_SETTINGS } from "../../server/live/relay.js";
import { HEARTBEAT_MS, STALENESS_BOUND_MS } from "../../server/memory/feed.js";

const paced = { pollMs: 20, idle: { pollMs: 100, afterMs: 1000 } };

describe("the relay's pause before its next poll", () => {
  it("is the quick one until a second has passed since the last change, then the idle one", () => {
    expect(pauseBeforeNextPoll(paced, 0)).toBe(20);
    expect(pauseBeforeNextPoll(paced, 999)).toBe(20);
    expect(pauseBeforeNextPoll(paced, 1000)).toBe(100);
    expect(pauseBeforeNextPoll(paced, 60_000)).toBe(100);
  });

  it("is always the quick one when no idle pace is set (tests, and a deployment that wants it)", () => {
    expect(pauseBeforeNextPoll({ pollMs: 10 }, 60_000)).toBe(10);
  });

  it("by default still hears a heartbeat well within memory's bound: its period plus one idle pause, with room for both to run late", () => {
    const idlePause = DEFAULT_RELAY_SETTINGS.idle?.pollMs ?? DEFAULT_RELAY_SETTINGS.pollMs;
    // The newest heartbeat heard is at most one period plus one pause old, before the statement's own time.
    expect(2 * (HEARTBEAT_MS + idlePause)).toBeLessThanOrEqual(STALENESS_BOUND_MS);
  });
});
