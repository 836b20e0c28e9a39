// Request counting for the limits procedures apply (the rateLimited middleware): a fixed window per key, in
// @fastify/rate-limit's own in-memory store, the one the Fastify-level limits count in.
import LocalStore from "@fastify/rate-limit/store/LocalStore.js";

export type Window = { max: number; timeWindowMs: number };

export type RateLimitVerdict = { limited: false } | { limited: true; retryAfterSeconds: number };

/** Counts one request for `key`; limited once the window holds more than `max`. */
export type RateLimiter = (key: string) => Promise<RateLimitVerdict>;

/** The operations limited per caller inside the procedures, whichever door they come through. */
export type ProcedureRateLimits = { testPush?: RateLimiter };

export function createRateLimiter(window: Window): RateLimiter {
  const store = new LocalStore(false, false);
  return (key) =>
    new Promise((resolve, reject) => {
      store.incr(
        key,
        (err, count) => {
          if (err || !count) return reject(err ?? new Error("rate limit store returned no count"));
          resolve(
            count.current > window.max
              ? { limited: true, retryAfterSeconds: Math.ceil(count.ttl / 1000) }
              : { limited: false },
          );
        },
        window.timeWindowMs,
        window.max,
      );
    });
}
