// A live stream (a tRPC subscription over SSE) that comes back by itself after any end. The browser's
// EventSource only reconnects after a dropped connection; when the server ends the stream cleanly (a
// graceful restart, a deploy) the subscription goes "idle" and, left alone, stays so (issue AD.1).
import { useEffect, useRef } from "react";

/** Waits between attempts: 1 s, 2 s, 4 s … at most 30 s, with a little jitter so consoles spread out. */
export function reconnectDelay(attempt: number, random = Math.random): number {
  const base = Math.min(30_000, 1_000 * 2 ** attempt);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Starts `live` again (its reset()) after it ended ("idle") or failed ("error"), with a growing wait; a
 * stream that delivers again starts the count of attempts over.
 */
export function useStayConnected(live: { status: string; reset: () => void }): void {
  const attempt = useRef(0);
  const { status, reset } = live;
  useEffect(() => {
    if (status === "pending") attempt.current = 0;
    if (status !== "idle" && status !== "error") return;
    const timer = window.setTimeout(reset, reconnectDelay(attempt.current++));
    return () => window.clearTimeout(timer);
  }, [status, reset]);
}
