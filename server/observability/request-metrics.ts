// Each request's log lines and metrics name its route template, never its raw URL. Every route gets a
// child logger factory of its own (Fastify's `childLoggerFactory` route option, set in an onRoute hook)
// that binds `route` beside `reqId`, so every line of a request, "incoming request" and "request completed"
// included, carries it; a request no route matched gets `route: "unmatched"` from the instance's factory.
// Once answered, a request is counted and timed by method, route label and status code.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { httpRequestDuration, httpRequests, routeLabel, UNMATCHED_ROUTE } from "./metrics.js";

type ChildLoggerFactory = FastifyInstance["childLoggerFactory"];

const withRoute =
  (route: string): ChildLoggerFactory =>
  (logger, bindings, options) =>
    logger.child({ ...bindings, route }, options);

export function requestObserver(trpc: Parameters<typeof routeLabel>[2]) {
  const count = (request: FastifyRequest, reply: FastifyReply) => {
    const labels = {
      method: request.method,
      route: routeLabel(request.routeOptions.url, request.params, trpc),
      status_code: String(reply.statusCode),
    };
    httpRequests.inc(labels);
    httpRequestDuration.observe(labels, reply.elapsedTime / 1000);
  };
  return {
    /** Fastify's `childLoggerFactory` server option: the logger of requests no route matched. */
    childLoggerFactory: withRoute(UNMATCHED_ROUTE),
    /** Counts a request answered where no hook runs (Fastify's `frameworkErrors`). */
    count,
    /** Adds the hooks; call it before any route is added, as routes added earlier are not seen. */
    register(app: FastifyInstance) {
      app.addHook("onRoute", (route) => {
        route.childLoggerFactory = withRoute(route.url);
      });
      app.addHook("onResponse", async (request, reply) => count(request, reply));
    },
  };
}
