// The guards of the paths better-auth serves and of every write, registered by app.ts before anything else
// runs: paths in normal form, its admin plugin closed, trusted origins for cookie writes, and the sign-in and
// sign-up limits (sign-in and sign-up are no procedures, so the limits sit at the Fastify door).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, TooManyRequestsError, UnsupportedMediaTypeError } from "../errors/errors.js";
import { sendError } from "../errors/rest.js";
import { normalAuthPath } from "./auth-path.js";
import { createFailureBudget, createRateLimiter, type RateLimitStore, type Window } from "./rate-limit.js";
import { addRouteHook, isAuthRoute } from "./route-hooks.js";
import { judgeWrite } from "./trusted-writes.js";

const SIGN_IN_PATH = "/api/auth/sign-in/email";
/** better-auth's admin plugin endpoints, closed in every case spelling its router might accept. */
const ADMIN_PLUGIN_PATH = /^\/api\/auth\/admin(\/|$)/i;
const SIGN_UP_PATH = "/api/auth/sign-up/email";

/**
 * Whether this request signs in or signs up, or null: what the limits count and a closed sign-up refuses
 * (sign-in and sign-up are no procedures, so both sit at the Fastify door). Only paths in normal form reach
 * better-auth (server/http/auth-path.ts), so this is the path it serves; the case is folded in case its
 * router does.
 */
export function authOperation(method: string, url: string): "signIn" | "signUp" | null {
  const path = normalAuthPath(url)?.toLowerCase();
  if (method === "POST" && path === SIGN_IN_PATH) return "signIn";
  if (method === "POST" && path === SIGN_UP_PATH) return "signUp";
  return null;
}

/**
 * Refused before anything else runs: a path under /api/auth/ that is not in normal form (400), a write with
 * the session cookie from an untrusted origin (403), a write whose body is not JSON (415).
 */
export function registerRequestGuards(app: FastifyInstance, isTrustedOrigin: (origin: string) => boolean) {
  // A callback hook, not an async one: every request passes here, and a promise each cost ~1 % of an OFREP
  // evaluation (issue AE). A refusal sends its answer and does not call done.
  app.addHook("onRequest", (request, reply, done) => {
    const refusal = refusalOf(request, isTrustedOrigin);
    if (refusal) sendError(reply, refusal);
    else done();
  });
}

/** Why this request is refused before anything runs, or null. */
function refusalOf(request: FastifyRequest, isTrustedOrigin: (origin: string) => boolean): AppError | null {
  const authPath = normalAuthPath(request.url);
  if (authPath === null)
    return new AppError("VALIDATION_ERROR", "Malformed URL: /api/auth/ paths take no dot, empty or %-escaped segments");
  // better-auth's admin endpoints read their input their own way; accounts are the service's own (issue X).
  if (authPath && ADMIN_PLUGIN_PATH.test(authPath)) {
    return new AppError("NOT_FOUND", "Not found: accounts are administered under /api/admin/users (docs/api.md#accounts)");
  }
  switch (judgeWrite(request, isTrustedOrigin)) {
    case "untrusted-origin":
      return new AppError("FORBIDDEN", "A write with the session cookie must come from a trusted origin");
    case "not-json":
      return new UnsupportedMediaTypeError();
  }
  return null;
}

export function registerRateLimits(
  app: FastifyInstance,
  limits: { signIn: Window; signUp: Window; signInFailuresPerAddress: Window },
  store: RateLimitStore,
) {
  const limiters = {
    signIn: createRateLimiter(store, "sign-in", limits.signIn),
    signUp: createRateLimiter(store, "sign-up", limits.signUp),
  };
  const keys = {
    signIn: (req: FastifyRequest) => `${req.ip}|${String((req.body as { email?: unknown } | undefined)?.email ?? "").toLowerCase()}`,
    signUp: (req: FastifyRequest) => req.ip,
  };
  // One address trying many accounts stays under the per-account limit (53 e-mails sprayed without a 429,
  // issue X): its failed sign-ins also share one budget per address. A failure is only known from the
  // answer, so each attempt holds a point until then and gets it back unless better-auth refused it (4xx).
  const failures = createFailureBudget(store, "sign-in-failures", limits.signInFailuresPerAddress);
  const holding = new WeakSet<FastifyRequest>();
  // preHandler: the body (the sign-in address) is parsed by then. Only better-auth's routes take these.
  addRouteHook(app, "preHandler", isAuthRoute, async (request, reply) => {
    const operation = authOperation(request.method, request.url);
    if (!operation) return;
    const verdict = await limiters[operation](keys[operation](request));
    if (verdict.limited) return sendError(reply, new TooManyRequestsError(verdict.retryAfterSeconds));
    if (operation !== "signIn") return;
    const budget = await failures.reserve(request.ip);
    holding.add(request);
    if (budget.limited) return sendError(reply, new TooManyRequestsError(budget.retryAfterSeconds));
  });
  // The point comes back before the answer leaves (onSend, not onResponse): a client that signs in again as
  // soon as it has its answer must find its success already given back (issue X, a success spends nothing).
  const settle = async (request: FastifyRequest, status: number) => {
    if (!holding.delete(request)) return;
    // A success, a server fault or this limit's own 429 is no failed sign-in.
    if (status < 400 || status >= 500 || status === 429) {
      await failures.refund(request.ip).catch((err) => request.log.warn({ err }, "sign-in limit: giving a point back failed"));
    }
  };
  addRouteHook(app, "onSend", isAuthRoute, async (request, reply) => {
    await settle(request, reply.statusCode);
  });
  // Settles an answer that did not pass the hook above (an onSend hook before it failed) once it is sent.
  addRouteHook(app, "onResponse", isAuthRoute, async (request, reply) => {
    await settle(request, reply.statusCode);
  });
}
