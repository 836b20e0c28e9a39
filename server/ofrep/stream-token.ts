// The credential in an OFREP event stream's URL (docs/platform.md#reading-the-restriction-from-other-services): a
// browser's EventSource sends no headers, so the bulk answer hands out a URL that carries, signed with the
// service's secret, the key it was made for, the pro it follows and when it stops being accepted.
import { createHmac, timingSafeEqual } from "node:crypto";

/** How long a stream URL may be used to connect (a connected stream stays open past it). */
export const STREAM_TOKEN_TTL_MS = 24 * 3_600_000;

export type StreamGrant = { keyId: string; targetingKey: string; expiresAt: number };

const sign = (secret: string, body: string) => createHmac("sha256", `ofrep-stream:${secret}`).update(body).digest("base64url");

export function streamToken(secret: string, grant: StreamGrant): string {
  const body = Buffer.from(JSON.stringify([grant.keyId, grant.targetingKey, grant.expiresAt])).toString("base64url");
  return `${body}.${sign(secret, body)}`;
}

/** The grant a token carries, or null when it is malformed, forged or expired. */
export function readStreamToken(secret: string, token: unknown, now = Date.now()): StreamGrant | null {
  if (typeof token !== "string" || token.length > 2000) return null;
  const dot = token.indexOf(".");
  if (dot < 1) return null;
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(secret, body));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const [keyId, targetingKey, expiresAt] = JSON.parse(Buffer.from(body, "base64url").toString()) as unknown[];
    if (typeof keyId !== "string" || typeof targetingKey !== "string" || typeof expiresAt !== "number" || expiresAt <= now) return null;
    return { keyId, targetingKey, expiresAt };
  } catch {
    return null;
  }
}
