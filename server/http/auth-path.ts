// The paths under /api/auth/* that reach better-auth. Fastify routes /api/auth/* by the raw URL, but
// better-auth resolves it (WHATWG URL rules, then its router): `/api/auth/./sign-in/email`, `x/../`, `//`,
// `%2e` and a trailing slash all reached sign-in, while the sign-in and sign-up limits compared the raw path
// and never counted them (issue K). Only a path in its one normal form is served, so the path the limits
// see is the path better-auth serves.

const AUTH_PREFIX = "/api/auth/";

/**
 * The path of an /api/auth/* request when it is in normal form: segments of letters, digits, `-` and `_`
 * only (every better-auth path and token is), no empty, `.` or `..` segment, no %-escape, no trailing
 * slash. Null for anything else under /api/auth/, which is refused. Undefined outside /api/auth/.
 */
export function normalAuthPath(url: string): string | null | undefined {
  // The prefix holds no "?": the URL starts with it exactly when its path does (and only these are split).
  if (!url.startsWith(AUTH_PREFIX)) return undefined;
  const path = url.split("?", 1)[0]!;
  return /^\/api\/auth(\/[A-Za-z0-9_-]+)+$/.test(path) ? path : null;
}
