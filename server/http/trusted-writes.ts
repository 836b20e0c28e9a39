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
export const mediaType = (contentType: string | undefined) =>
  // The header of almost every write, taken as it is: three copies of it on each OFREP evaluation (issue AE).
  contentType === "application/json" ? contentType : contentType?.split(";", 1)[0]?.trim().toLowerCase();

/** Whether the request carries a body (a length above 0, or a chunked one). */
const hasBody = (request: FastifyRequest) =>
  request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;

/** Whether the request brings a credential of its own that a page on another origin cannot make a browser send. */
const bringsOwnCredential = (request: FastifyRequest) => {
  const { authorization } = request.headers;
  const key = request.headers["x-api-key"];
  return (typeof authorization === "string" && /^bearer\s/i.test(authorization)) || (typeof key === "string" && key !== "");
};

/**
 * Whether a write may go on. A write with the session cookie from an origin that is not trusted (its
 * `Origin` is not one, and the browser does not say it is the service's own page with `Sec-Fetch-Site:
 * same-origin`) never counts that cookie, whatever other headers come along: a browser adds `Authorization:
 * Basic` by itself behind an HTTP-auth proxy. With a bearer token or an API key, the cookie is set aside
 * (deleted from the request) and that credential alone counts; without one, the write is refused. Every
 * write's body, from anyone, is JSON; a write without a body needs none.
 */
export function judgeWrite(request: FastifyRequest, isTrustedOrigin: (origin: string) => boolean): WriteVerdict {
  if (!WRITE_METHODS.has(request.method)) return "allowed";
  const { cookie, origin } = request.headers;
  if (cookie && SESSION_COOKIE.test(cookie)) {
    const trusted =
      (typeof origin === "string" && origin !== "null" && isTrustedOrigin(origin)) || request.headers["sec-fetch-site"] === "same-origin";
    if (!trusted && !bringsOwnCredential(request)) return "untrusted-origin";
    // Every later reader (sessions, tRPC, better-auth) takes the headers from this object.
    if (!trusted) delete request.headers.cookie;
  }
  if (hasBody(request) && mediaType(request.headers["content-type"]) !== "application/json") return "not-json";
  return "allowed";
}

/**
 * Whether a call is a program's, not a web page's: it carries no cookie, no `Origin`, no `Referer` and no
 * `Sec-Fetch-Site`. A browser sends `Origin` with every POST (`null` when it hides it) and `Sec-Fetch-Site` with
 * each request whenever it sends any Fetch Metadata; Node's fetch sends `Sec-Fetch-Mode: cors` alone, which
 * better-auth takes for a browser hiding its origin (403 MISSING_OR_NULL_ORIGIN) while it lets curl in.
 * Such a call rides on nobody's session, and a page cannot make a browser send it (docs/api.md#browsers).
 */
export function isProgramCall(headers: FastifyRequest["headers"]): boolean {
  return (
    headers.cookie === undefined && headers.origin === undefined && headers.referer === undefined && headers["sec-fetch-site"] === undefined
  );
}
