// Writes a browser sends with the session cookie (docs/api.md#browsers). SameSite=Lax alone let a page on
// another port of the same host (same site, other origin) activate a cohort with a text/plain form POST and
// run tRPC mutations with a multipart form (issue K). A write is POST, PUT, PATCH or DELETE: a REST write,
// a tRPC mutation, or a call to better-auth (which checks its origins too, against the same list).
import type { FastifyRequest } from "fastify";

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** better-auth's session cookie, with the __Secure- prefix it takes on https. */
const SESSION_COOKIE = /(?:^|;)\s*(?:__Secure-)?better-auth\.session_token=/;

export type WriteVerdict = "allowed" | "untrusted-origin" | "not-json";

/** The media type of a Content-Type header, lower-cased, without its parameters. */
export const mediaType = (contentType: string | undefined) => contentType?.split(";", 1)[0]?.trim().toLowerCase();

/** Whether the request carries a body (a length above 0, or a chunked one). */
const hasBody = (request: FastifyRequest) =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;

/**
 * Whether a write may go on. With the session cookie and no Authorization header (a bearer caller sets its
 * header itself, which no other page can make a browser do), it must come from a trusted origin: its
 * `Origin` is one, or the browser says it is the service's own page (`Sec-Fetch-Site: same-origin`). Every
 * write's body, from anyone, is JSON; a write without a body needs none.
 */
export function judgeWrite(request: FastifyRequest, isTrustedOrigin: (origin: string) => boolean): WriteVerdict {
  if (!WRITE_METHODS.has(request.method)) return "allowed";
  const { cookie, authorization, origin } = request.headers;
  if (cookie && !authorization && SESSION_COOKIE.test(cookie)) {
    const trusted =
      (typeof origin === "string" && origin !== "null" && isTrustedOrigin(origin)) || request.headers["sec-fetch-site"] === "same-origin";
    if (!trusted) return "untrusted-origin";
  }
  if (hasBody(request) && mediaType(request.headers["content-type"]) !== "application/json") return "not-json";
  return "allowed";
}
