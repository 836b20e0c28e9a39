// The durable queue's retry rule (server/push/retry.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { afterAttempt, MAX_ATTEMPTS, MAX_RETRY_DELAY_MS, readRetryAfter, retryDelayMs, urgencyOf } from "../../server/push/retry.js";

const base = { baseMs: 1000, retryAfterSeconds: null };

describe("what an attempt's answer means for a delivery", () => {
  it("2xx sent, 404/410 gone, other 4xx failed at once; 429, 5xx, timeouts and network errors retried up to 5 attempts", () => {
    expect(afterAttempt({ status: 201 }, 1, base)).toEqual({ status: "sent" });
    expect(afterAttempt({ status: 410 }, 1, base)).toEqual({ status: "gone" });
    expect(afterAttempt({ status: 404 }, 3, base)).toEqual({ status: "gone" });
    expect(afterAttempt({ status: 400 }, 1, base)).toEqual({ status: "failed" });
    expect(afterAttempt({ status: 413 }, 1, base)).toEqual({ status: "failed" });
    expect(afterAttempt({ failure: "address" }, 1, base)).toEqual({ status: "failed" });
    for (const answer of [
      { status: 429 },
      { status: 503 },
      { failure: "timeout" as const, message: "" },
      { failure: "network" as const, message: "" },
    ]) {
      expect(afterAttempt(answer, 1, base).status).toBe("queued");
      expect(afterAttempt(answer, MAX_ATTEMPTS, base)).toEqual({ status: "failed" });
    }
  });

  it("waits about base × 2^(n-1), jittered within its upper half, capped at 5 minutes; never before Retry-After, however long", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const full = Math.min(MAX_RETRY_DELAY_MS, 1000 * 2 ** (attempt - 1));
        const delay = retryDelayMs(attempt, 1000, null, () => r);
        return delay >= Math.floor(full / 2) && delay <= full;
      }),
    );
    expect(retryDelayMs(1, 1000, 120, () => 0)).toBe(120_000);
    // A push service's Retry-After is honoured whole, past the service's own 5-minute cap.
    expect(retryDelayMs(1, 1000, 10_000, () => 0)).toBe(10_000_000);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 2_419_200 }), (attempt, retryAfter) => {
        return retryDelayMs(attempt, 1000, retryAfter) >= retryAfter * 1000;
      }),
    );
  });

  it("a retry that would fall after the message's TTL is not made: failed, saying when it would have been", () => {
    const throttled = { status: 429 };
    expect(afterAttempt(throttled, 1, { ...base, retryAfterSeconds: 7200, expiresInMs: 3_600_000 })).toEqual({
      status: "failed",
      expired: { delayMs: 7_200_000 },
    });
    expect(afterAttempt(throttled, 1, { ...base, retryAfterSeconds: 1800, expiresInMs: 3_600_000 })).toEqual({
      status: "queued",
      delayMs: 1_800_000,
    });
    // The service's own backoff is held to the TTL too.
    expect(afterAttempt({ status: 503 }, 1, { ...base, expiresInMs: 0, random: () => 0 })).toMatchObject({ status: "failed" });
  });

  it("reads Retry-After as seconds or an HTTP date; the Urgency by category", () => {
    expect(readRetryAfter("30")).toBe(30);
    expect(readRetryAfter(new Date(Date.now() + 5_000).toUTCString())).toBeGreaterThanOrEqual(4);
    expect(readRetryAfter("soon")).toBeNull();
    expect(readRetryAfter(null)).toBeNull();
    expect([urgencyOf("messages"), urgencyOf("billing"), urgencyOf("reviews")]).toEqual(["high", "normal", "low"]);
  });
});
