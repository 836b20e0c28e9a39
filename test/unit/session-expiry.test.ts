import { afterEach, describe, expect, it, vi } from "vitest";
import { onSessionExpiry } from "../../server/live/session-expiry.js";

describe("onSessionExpiry: a live stream ends when its session expires", () => {
  afterEach(() => void vi.useRealTimers());

  it("closes at the expiry, not before, and not after being cancelled", () => {
    vi.useFakeTimers();
    const close = vi.fn();
    onSessionExpiry(new Date(Date.now() + 60_000), close);
    vi.advanceTimersByTime(59_999);
    expect(close).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(close).toHaveBeenCalledTimes(1);

    const other = vi.fn();
    onSessionExpiry(new Date(Date.now() + 1_000), other)();
    vi.advanceTimersByTime(5_000);
    expect(other).not.toHaveBeenCalled();
  });

  it("closes at once for a session already expired", () => {
    vi.useFakeTimers();
    const close = vi.fn();
    onSessionExpiry(new Date(Date.now() - 1), close);
    vi.advanceTimersByTime(0);
    expect(close).toHaveBeenCalledTimes(1);
  });

  it("waits past setTimeout's ~24.8-day limit by re-arming, and still closes on time", () => {
    vi.useFakeTimers();
    const close = vi.fn();
    const days = 40;
    onSessionExpiry(new Date(Date.now() + days * 86_400_000), close);
    vi.advanceTimersByTime(days * 86_400_000 - 1);
    expect(close).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(close).toHaveBeenCalledTimes(1);
  });
});
