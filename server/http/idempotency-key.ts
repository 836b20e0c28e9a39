// The pure parts of safe retries (docs/api.md#safe-retries): which requests take an Idempotency-Key,
// what a well-formed key is, and the fingerprint that tells a repeat from another request under one key.
import { createHash } from "node:crypto";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const REPLAYED_HEADER = "idempotent-replayed";
/** 1 to 255 visible ASCII characters (0x21–0x7E): no spaces, no control characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
export const IDEMPOTENCY_KEY_PROBLEM = "must be 1 to 255 visible ASCII characters (no spaces)";
/** How long a key and its answer are kept. */
export const IDEMPOTENCY_KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

const WRITES = new Set(["POST", "PATCH", "DELETE"]);

/** The producer API: a service with a key retries by its own eventIds (docs/producers.md#sending-notifications-from-a-service). */
const PRODUCER_PATH = "/api/notifications/events";

/** REST writes under /api/, better-auth's own paths and the producer API excepted; never /trpc. */
export function takesIdempotencyKey(method: string, url: string): boolean {
  const path = url.split("?")[0]!;
  return WRITES.has(method) && path.startsWith("/api/") && !path.startsWith("/api/auth/") && path !== PRODUCER_PATH;
}

/** The key when the header holds a well-formed one; null otherwise (a repeated header arrives joined or as a list). */
export function wellFormedKey(header: string | string[] | undefined): string | null {
  return typeof header === "string" && IDEMPOTENCY_KEY_PATTERN.test(header) ? header : null;
}

/** JSON with object keys sorted at every depth, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one body. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "";
}

/** sha256 over method, path with query, and the parsed body (empty when there is none), hex. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const canonicalBody = body === undefined ? "" : canonicalJson(body);
  return createHash("sha256").update(`${method}\n${url}\n${canonicalBody}`).digest("hex");
}
