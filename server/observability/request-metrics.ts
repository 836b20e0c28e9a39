// Each request's log lines and metrics name its route template, never its raw URL. Every route gets a
// child logger factory of its own (Fastify's `childLoggerFactory` route option, set in an onRoute hook)
// that binds `route` beside `reqId`, so every line of a request, "incoming request" and "request completed"
// included, carries it; a request no route matched gets `route: "unmatched"` from the instance's factory.
// Once answered, a request is counted and timed by method, route label and status code, and (LOG_REQUESTS)
// logged in one line with its request's fields: Fastify's own two lines a request were ~17 % of an OFREP
// evaluation's CPU with logging on (issue AE); `both` keeps them.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { addHookPerRoute } from "../http/route-hooks.js";
import { httpRequestSeries, routeLabel, trpcRoutes, UNMATCHED_ROUTE } from "./metrics.js";

type ChildLoggerFactory = FastifyInstance["childLoggerFactory"];

// Fastify makes `bindings` for this one call: adding `route` to it saves a copy, which cost ~3 % of an OFREP
// evaluation's CPU (its key is computed, so V8 copies it the slow way; issue AE).
const withRoute =
  (route: string): ChildLoggerFactory =>
  (logger, bindings, options) => {
    bindings.route = route;
    return logger.child(bindings, options);
  };

/** LOG_REQUESTS (server/config.ts): which answered requests get their one info line. */
export type RequestLogMode = "completed" | "both" | "errors";

/** `trpcRoute`: the tRPC door's route template, whose calls are labelled by their procedure (routeLabel). */
export function requestObserver(trpcRoute: string, procedures: Iterable<string>) {
  const trpc = trpcRoutes(trpcRoute, procedures);
  // The mode comes with each call: apps of one process (tests) share this observer and may log differently.
  const answered = (request: FastifyRequest, reply: FastifyReply, template: string | undefined, mode: RequestLogMode = "completed") => {
    httpRequestSeries.record(request.method, routeLabel(template, request.params, trpc), reply.statusCode, reply.elapsedTime / 1000);
    if (mode === "both" || (mode === "errors" && reply.statusCode < 400)) return;
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
  };
  return {
    /** Fastify's `childLoggerFactory` server option: the logger of requests no route matched. */
    childLoggerFactory: withRoute(UNMATCHED_ROUTE),
    /** Counts and logs a request answered where no hook runs (Fastify's `frameworkErrors`), with its route's template. */
    answered,
    /**
     * Adds the hooks; call it before any route is added, as routes added earlier are not seen. With `both`,
     * Fastify logs (disableRequestLogging off); otherwise this hook writes the one line Fastify would end with.
     */
    register(app: FastifyInstance, logRequests: RequestLogMode = "completed") {
      app.addHook("onRoute", (route) => {
        route.childLoggerFactory = withRoute(route.url);
      });
      // Each route's own hook holds its template: Fastify builds `request.routeOptions` anew on every read,
      // ~2 % of an OFREP evaluation's CPU (issue AE). A request no route matched is the app-wide hook's.
      addHookPerRoute(app, "onResponse", (route) => (request, reply, done) => {
        answered(request, reply, route.url, logRequests);
        done();
      });
      app.addHook("onResponse", (request, reply, done) => {
        if (request.is404) answered(request, reply, undefined, logRequests);
        done();
      });
    },
  };
}
