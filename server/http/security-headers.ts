// helmet's security headers (its defaults), computed once. They are the same for every answer, and the
// Fastify plugin re-derived them on each request (two hooks, the CSP directives parsed again), which the
// bench's profiles showed as a few per cent of a small request's CPU (BENCHMARKS.md, issue J).
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
