// A hook only some routes need, given to those routes alone. An app-wide hook runs on every request, and
// the hot reads (an OFREP evaluation, a pro's status, an unread count) paid for hooks that always returned
// at once: better-auth's limits and text check, safe retries, the memory fence (issue AE). This adds the
// hook to each matching route's own hooks as the route is declared (Fastify's onRoute), where it runs after
// the app-wide hooks of its kind, as it did when it was registered after them.
import type { FastifyInstance, RouteOptions } from "fastify";

type ScopedHook = "onRequest" | "preValidation" | "preHandler" | "onSend" | "onResponse";

/** The methods a route serves, as a list (a route may name one or several). */
export const routeMethods = (route: Pick<RouteOptions, "method">): string[] =>
  Array.isArray(route.method) ? route.method : [route.method];

/**
 * Adds `hook` to every route declared from now on for which `applies` is true. Call it before those routes
 * are declared: the routes of plugins registered later, at any depth, are seen too.
 */
export function addRouteHook<Name extends ScopedHook>(
  app: FastifyInstance,
  name: Name,
  applies: (route: RouteOptions) => boolean,
  hook: RouteHook<Name>,
): void {
  addHookPerRoute(app, name, (route) => (applies(route) ? hook : undefined));
}

type RouteHook<Name extends ScopedHook> = Extract<NonNullable<RouteOptions[Name]>, (...args: never[]) => unknown>;

/**
 * Adds to every route declared from now on the hook `make` gives for it (none when it gives undefined): a hook
 * that knows its route, such as its template, without asking the request (Fastify builds `routeOptions` anew
 * on every read).
 */
export function addHookPerRoute<Name extends ScopedHook>(
  app: FastifyInstance,
  name: Name,
  make: (route: RouteOptions) => RouteHook<Name> | undefined,
): void {
  app.addHook("onRoute", (route) => {
    const hook = make(route);
    if (!hook) return;
    const existing = route[name] as unknown;
    const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    (route as Record<ScopedHook, unknown>)[name] = [...hooks, hook];
  });
}

/** better-auth's routes (server/auth/better-auth.ts mountAuth): the paths under /api/auth/. */
export const isAuthRoute = (route: Pick<RouteOptions, "url">) => route.url.startsWith("/api/auth/");
