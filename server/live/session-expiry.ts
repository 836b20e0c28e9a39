// Ending a stream when the session it was opened with expires: the unread-count streams of both doors and
// OFREP's change stream.

/** setTimeout's largest delay; a session expiring later is checked again when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `close` when the session expires (timers cannot wait longer than ~24.8 days, so it re-arms). */
export function onSessionExpiry(expiresAt: Date, close: () => void): () => void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = expiresAt.getTime() - Date.now();
    timer = left <= 0 ? setTimeout(close, 0) : setTimeout(left > MAX_TIMER_MS ? arm : close, Math.min(left, MAX_TIMER_MS));
  };
  arm();
  return () => clearTimeout(timer);
}
