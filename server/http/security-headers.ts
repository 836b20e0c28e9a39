// The security headers every answer carries, computed once. Pages (the console, the API reference, better-auth's
// own answers) get helmet's defaults; the JSON API gets the set OWASP's REST Security Cheat Sheet gives APIs.
// Both are the same for every answer, and the Fastify plugin re-derived them on each request (two hooks, the CSP
// directives parsed again), a few per cent of a small request's CPU (BENCHMARKS.md, issue J).
import type { IncomingMessage, ServerResponse } from "node:http";
import helmet from "helmet";

export function securityHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let done = false;
  helmet()({} as IncomingMessage, response as unknown as ServerResponse, () => {
    done = true;
  });
  // helmet applies its headers synchronously; if a version ever did not, answers must not go out bare.
  if (!done) throw new Error("helmet did not apply its headers synchronously");
  return Object.freeze(headers);
}

/**
 * The JSON API's headers: a JSON answer loads nothing and is never framed, so its policy is `default-src 'none';
 * frame-ancestors 'none'` with X-Frame-Options DENY (OWASP's REST set), beside helmet's HSTS, nosniff and
 * Cross-Origin-Resource-Policy. helmet's other seven (opener policy, origin-agent cluster, referrer policy,
 * DNS prefetch, IE's download options, Adobe's cross-domain policies, the old XSS auditor) act on documents
 * only. Five headers instead of twelve (232 bytes instead of 663): Node checks and writes each
 * header on every answer, ~3 % of an OFREP evaluation's CPU (issue AE).
 */
export function apiSecurityHeaders(page = securityHeaders()): Readonly<Record<string, string>> {
  return Object.freeze({
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "cross-origin-resource-policy": page["cross-origin-resource-policy"]!,
    "strict-transport-security": page["strict-transport-security"]!,
    "x-content-type-options": page["x-content-type-options"]!,
    "x-frame-options": "DENY",
  });
}

/** better-auth's routes: its own answers, a redirect or a page among them, keep the pages' headers. */
const AUTH_PREFIX = "/api/auth/";

/** Whether the answer to this URL is the JSON API's (the API set) rather than a page's (helmet's). */
export function isApiUrl(url: string): boolean {
  if (url.startsWith("/api/")) return !url.startsWith(AUTH_PREFIX);
  return url.startsWith("/ofrep/") || url.startsWith("/trpc/") || url.startsWith("/health/");
}
