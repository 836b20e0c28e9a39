// What a request's log lines say about it (Fastify's `serializers.req`): Fastify's own fields, with the
// values of credential parameters in the query string replaced. An OFREP event stream's URL carries its
// credential as `token` (server/ofrep/stream-token.ts), and the "incoming request" line held the whole URL;
// a client that put its API key in `?api_key=` had it logged in full (issue X), so any credential-looking
// name is redacted, not only the service's own. Metric labels hold route templates only, never a query.
import type { FastifyRequest } from "fastify";

/**
 * Credential-looking parameter names, matched on the name lower-cased without `-`, `_` and `.`
 * (`API-Key`, `access_token`, `x.auth`). A harmless name caught too (`author`) only loses its value in logs;
 * none of the service's own query parameters matches (test/unit/request-log.test.ts).
 */
const CREDENTIAL_NAME = /token|secret|passw|pwd|pass$|credential|session|auth|apikey|key$|^sig$|signature|jwt|bearer|cookie/;
export const REDACTED = "[redacted]";

/** A parameter name as the query parser reads it (`%74oken` is `token`); one that does not decode counts as a credential. */
export function isCredentialName(raw: string): boolean {
  try {
    return CREDENTIAL_NAME.test(decodeURIComponent(raw.replace(/\+/g, " ")).trim().toLowerCase().replace(/[-_.]/g, ""));
  } catch {
    return true;
  }
}

/** The URL with the value of every credential parameter replaced, the rest as sent. */
export function loggedUrl(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split("&")
    .map((part) => {
      const eq = part.indexOf("=");
      const name = eq < 0 ? part : part.slice(0, eq);
      return eq >= 0 && isCredentialName(name) ? `${name}=${REDACTED}` : part;
    });
  return `${url.slice(0, q)}?${parts.join("&")}`;
}

/** Fastify's request serializer (lib/logger-pino.js), with the URL made safe to log. */
export function requestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request.url),
    version: request.headers?.["accept-version"],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
