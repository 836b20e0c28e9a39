// Pure rule of durable push delivery (docs/api.md#durable-push-delivery): what an attempt's answer means for
// the delivery, and when the next attempt is due. No I/O, unit-tested on its own.
import type { PushAnswer } from "./answer.js";

export const MAX_ATTEMPTS = 5;
/**
 * The service's own backoff never waits longer than this. A push service's Retry-After is honoured whole:
 * retrying sooner only earns another 429 and uses up an attempt.
 */
export const MAX_RETRY_DELAY_MS = 5 * 60_000;

export type DeliveryStatus = "queued" | "sent" | "failed" | "gone";

export type AttemptOutcome =
  | { status: "sent" | "gone" | "failed" }
  /** The next attempt would fall after the message's expiry (its TTL from the event): not made. */
  | { status: "failed"; expired: { delayMs: number } }
  /** Try again after `delayMs`. */
  | { status: "queued"; delayMs: number };

/** An answer worth trying again: 429, 5xx, a timeout or a network error. */
export function retriable(answer: PushAnswer): boolean {
  if ("failure" in answer) return answer.failure !== "address";
  return answer.status === 429 || answer.status >= 500;
}

/**
 * The delay before attempt `attempt + 1`: exponential from `baseMs` (base, 2×base, 4×base…) with full
 * jitter on its upper half (so retries of many deliveries spread out), capped at 5 minutes; never earlier
 * than the push service's Retry-After, however long that is (afterAttempt drops a retry past the expiry).
 */
export function retryDelayMs(
  attempt: number,
  baseMs: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (attempt - 1));
  const jittered = exponential / 2 + random() * (exponential / 2);
  const floor = retryAfterSeconds === null ? 0 : retryAfterSeconds * 1000;
  return Math.round(Math.max(jittered, floor));
}

/**
 * What becomes of a delivery after its `attempt`-th attempt got `answer`. `expiresInMs`: how long the message
 * stays worth sending (its TTL counted from the event); a retry due later is not made.
 */
export function afterAttempt(
  answer: PushAnswer,
  attempt: number,
  options: { baseMs: number; retryAfterSeconds: number | null; expiresInMs?: number; random?: () => number },
): AttemptOutcome {
  if ("status" in answer && answer.status >= 200 && answer.status < 300) return { status: "sent" };
  if ("status" in answer && (answer.status === 404 || answer.status === 410)) return { status: "gone" };
  if (!retriable(answer) || attempt >= MAX_ATTEMPTS) return { status: "failed" };
  const delayMs = retryDelayMs(attempt, options.baseMs, options.retryAfterSeconds, options.random);
  if (options.expiresInMs !== undefined && delayMs > options.expiresInMs) return { status: "failed", expired: { delayMs } };
  return { status: "queued", delayMs };
}

/** Retry-After in seconds (a number of seconds or an HTTP date), or null when absent or unreadable. */
export function readRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The Urgency header by category (RFC 8030 §5.3): what a person waits for is high, billing normal, the rest low. */
export function urgencyOf(category: string): "high" | "normal" | "low" {
  if (category === "messages" || category === "account") return "high";
  if (category === "leads" || category === "billing") return "normal";
  return "low";
}
