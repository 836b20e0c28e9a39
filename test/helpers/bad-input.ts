// The shared property runner of the bad-input tests: one app per file with pools of real records, and for
// a generated request what the contract says it must get. For every request: no 5xx; every 4xx is the
// contract's envelope; a validation error about fields names them in `details`; unknown ids are 404; and a
// refused request changes no row of the service's tables.
import { inArray } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, expect } from "vitest";
import webpush from "web-push";
import { notifications } from "../../db/schema/index.js";
import { jsonNestsDeeperThan } from "../../server/http/json-depth.js";
import { type RestRoute, restRoutes } from "../../server/rest/routes.js";
import { type TestUser, useTestApp } from "./app.js";
import {
  type BodyCase,
  type BodyModel,
  bodyCases,
  codePoints,
  nonBlank,
  type QueryCase,
  type QueryModel,
  queryCases,
  type Segment,
  storable,
  text,
} from "./bad-input-arbitraries.js";
import { N, type Pools, R, type RouteModel, routeModels } from "./bad-input-models.js";
import { U, validUserId } from "./bad-input-models-accounts.js";
import { insertCohort, PUSH_KEYS, registerPros, signUpPersonas } from "./fixtures.js";
import type { ApiError, WireOutput } from "./rest.js";
import { snapshotTables } from "./snapshot.js";

// Configured, so POST /test/push answers from its inputs rather than the contract's unconfigured 500.
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const NUM_RUNS = 40;

const STATUS_OF_CODE: Record<string, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
};

export const routeKey = (route: RestRoute) => `${route.method} ${route.path}`;

/**
 * Registers this file's app and fills the pools before its tests: an admin (the caller of every request) and
 * a user, two cohorts (the first with a passing check), registered pros, three notifications each, one push
 * subscription of the admin's, and one pro switched on.
 */
export function useBadInput() {
  // The test-push rate limit is the hardening tests' subject; here it would only hide what the inputs get.
  const t = useTestApp({ push: { vapid }, limits: { testPush: { max: 1_000_000, timeWindowMs: 60_000 } } });
  let admin: TestUser;
  let user: TestUser;
  const pools: Pools = { cohortIds: [], proIds: [], ownNotificationIds: [], othersNotificationIds: [], userIds: [] };

  beforeAll(async () => {
    ({ admin, user } = await signUpPersonas(t()));
    const db = t().db.db;
    const cohorts = [
      await insertCohort(db, { cohortNumber: 101, proIds: ["pool-pro-1", "pool-pro-2"], passingCheck: true }),
      await insertCohort(db, { cohortNumber: 102, proIds: ["pool-pro-2", "pool-pro-3"] }),
    ];
    pools.cohortIds = cohorts.map((c) => c.id);
    pools.proIds = ["pool-pro-1", "pool-pro-2", "pool-pro-3", "pool pro/ü %_"];
    await registerPros(db, pools.proIds);
    const caller = t().caller(admin);
    for (const owner of [admin, user]) {
      for (const type of ["message.received", "invoice.due", "weekly_digest"]) {
        const { notification } = await caller.notifications.testInApp({ type, title: `${type} 100%_ \\`, targetUserId: owner.id });
        (owner === admin ? pools.ownNotificationIds : pools.othersNotificationIds).push(notification.id);
      }
    }
    await caller.notifications.subscribe({ endpoint: "https://push.invalid/admin-1", ...PUSH_KEYS });
    await caller.restriction.activatePro({ proId: "pool-pro-1" });
    for (let i = 0; i < 4; i++) pools.userIds.push((await t().signUp()).id);
  });

  const models = routeModels(pools, () => ({ admin, user }));

  // ---- one generated request, and what must hold for it ----

  type Generated = { params: Record<string, Segment>; body: BodyCase | undefined; query: QueryCase };
  /** A route's models, built once the pools exist. */
  type Built = { route: RestRoute; body?: BodyModel; query?: QueryModel; known: Set<string>; strict: boolean };

  function build(route: RestRoute, model: RouteModel): Built {
    const body = model.body?.();
    const query = model.query?.();
    const known = new Set(["(body)", ...Object.keys(model.params ?? {}), ...Object.keys(body ?? {}), ...Object.keys(query ?? {})]);
    return { route, body, query, known, strict: model.strict === true };
  }

  function requestArbitrary(built: Built, model: RouteModel): fc.Arbitrary<Generated> {
    const params = fc.record(Object.fromEntries(Object.entries(model.params ?? {}).map(([name, make]) => [name, make()]))) as fc.Arbitrary<
      Record<string, Segment>
    >;
    const body = built.route.method === "GET" ? fc.constant(undefined) : bodyCases(built.body);
    const query = queryCases(built.query ?? { x: { valid: text(20) } });
    return fc.record({ params, body, query });
  }

  /** What the contract says a request must get, decided from the request alone. */
  type Expected =
    | { kind: "malformed-url" }
    | { kind: "status"; status: 400 | 413 | 415 }
    | { kind: "fields"; names: string[] }
    | { kind: "not-found"; message: string }
    | { kind: "free" };

  /** The kind of record a route's `:id` names, for the contract's `<Kind> <id> not found`. */
  const idKind = (route: RestRoute) =>
    route.path.startsWith(`${R}/cohorts/`)
      ? "Cohort"
      : route.path.startsWith(`${N}/:id`)
        ? "Notification"
        : route.path.startsWith(`${U}/:id`)
          ? "User"
          : null;

  function parseBody(
    payload: BodyCase | undefined,
  ): { kind: "none" } | { kind: "value"; value: unknown } | { kind: "unsupported" } | { kind: "refused" } {
    if (payload?.text === undefined || payload.text === "") return { kind: "none" };
    const type = payload.contentType ?? "";
    // A write's body is JSON or nothing (docs/api.md#browsers): any other type is 415, whatever it holds.
    if (!type.startsWith("application/json")) return { kind: "unsupported" };
    // Deeper than any input of the service: refused before anything walks it.
    if (jsonNestsDeeperThan(payload.text)) return { kind: "refused" };
    try {
      const value = JSON.parse(payload.text) as unknown;
      // Fastify refuses a body with a __proto__ key anywhere (prototype poisoning).
      if (hasProtoKey(value)) return { kind: "refused" };
      return value === null ? { kind: "none" } : { kind: "value", value };
    } catch {
      return { kind: "refused" };
    }
  }

  /** Whether any object in the value has an own `__proto__` key; iterative, for 20,000-deep JSON. */
  function hasProtoKey(value: unknown): boolean {
    const stack = [value];
    while (stack.length) {
      const v = stack.pop();
      if (typeof v !== "object" || v === null) continue;
      if (!Array.isArray(v) && Object.hasOwn(v, "__proto__")) return true;
      stack.push(...Object.values(v));
    }
    return false;
  }

  function expectedFor(built: Built, gen: Generated): Expected {
    const { route } = built;
    if (Object.values(gen.params).some((s) => s.decoded === null)) return { kind: "malformed-url" };
    const payload = gen.body;
    const parsed = parseBody(payload);
    // The content type is judged before the body is read, so before its size.
    if (parsed.kind === "unsupported") return { kind: "status", status: 415 };
    if (payload?.text !== undefined && payload.text.length > 1_000_000) return { kind: "status", status: 413 };
    if (parsed.kind === "refused") return { kind: "status", status: 400 };
    const isBodyRoute = route.input === "body";
    const isObject =
      parsed.kind === "none" || (parsed.kind === "value" && typeof parsed.value === "object" && !Array.isArray(parsed.value));
    if (isBodyRoute && !isObject) return { kind: "fields", names: ["(body)"] };

    const early: string[] = [];
    if (route.path.includes(":proId") && !validProIdValue(gen.params.proId!.decoded!)) early.push("proId");
    if (route.path.startsWith(`${U}/:id`) && !validUserId(gen.params.id!.decoded!)) early.push("id");
    if (isBodyRoute && built.body) {
      const fields = parsed.kind === "value" ? (parsed.value as Record<string, unknown>) : {};
      const required = Object.entries(built.body)
        .filter(([name, f]) => f.required && !(name in fields))
        .map(([name]) => name);
      early.push(...new Set([...(parsed.kind === "value" ? payload!.bad : []), ...required]));
      // A body key the model does not name is refused, but for a path parameter's name: the path's value wins.
      const unknown = (key: string) => !Object.hasOwn(built.body!, key) && !Object.hasOwn(gen.params, key);
      if (built.strict && Object.keys(fields).some(unknown)) early.push("(body)");
    }
    if (route.input === "query") early.push(...gen.query.bad);
    if (early.length) return { kind: "fields", names: early };
    if (isBodyRoute && parsed.kind === "value" && payload!.late.length) return { kind: "fields", names: payload!.late };

    const kind = idKind(route);
    const id = gen.params.id;
    // Contract: an id that names nothing (a UUID or not) is 404 naming the kind and the id, never 400.
    if (kind && id && !id.known) return { kind: "not-found", message: `${kind} ${id.decoded} not found` };
    return { kind: "free" };
  }

  const shown = (s: string | undefined) => (s === undefined ? "-" : s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);

  type Answer = {
    status: number;
    /** A success's data, as JSON; its shape depends on the route. */
    data?: unknown;
    error?: ApiError;
    /** The request and the answer, for assertion messages. */
    where: string;
  };

  /**
   * Sends one request as the admin and checks what holds for every answer: no 5xx; a 4xx is the envelope,
   * with a code that matches the status and details that name the route's fields; and it changed no row.
   */
  async function send(built: Built, url: string, payload?: { text?: string; contentType?: string }): Promise<Answer> {
    const { route } = built;
    const headers: Record<string, string> = { ...admin.headers };
    if (payload?.contentType) headers["content-type"] = payload.contentType;
    const before = await snapshotTables(t().db.db);
    const res = await t().app.inject({
      method: route.method,
      url,
      headers,
      ...(payload?.text !== undefined ? { payload: payload.text } : {}),
    });
    const where = `${route.method} ${shown(url)} body=${shown(payload?.text)} [${payload?.contentType ?? "no content-type"}] → ${res.statusCode} ${shown(res.body)}`;

    expect(res.statusCode, where).toBeLessThan(500);
    const body = JSON.parse(res.body) as { success: boolean; data?: unknown; error?: Answer["error"] };
    if (res.statusCode < 400) {
      expect(body.success, where).toBe(true);
      return { status: res.statusCode, data: body.data, where };
    }
    expect(Object.keys(body).sort(), where).toEqual(["error", "success"]);
    expect(body.success, where).toBe(false);
    const error = body.error!;
    // A body that is not JSON is a VALIDATION_ERROR answered with 415 (docs/api.md#errors).
    expect(res.statusCode === 415 && error.code === "VALIDATION_ERROR" ? 415 : STATUS_OF_CODE[error.code], where).toBe(res.statusCode);
    expect(typeof error.message === "string" && error.message.length > 0, where).toBe(true);
    if (error.details !== undefined) {
      expect(error.details.length, where).toBeGreaterThan(0);
      for (const detail of error.details) {
        expect(Object.keys(detail).sort(), where).toEqual(["field", "message"]);
        expect(built.known.has(detail.field.split(".")[0]!), `${where}: details name an unknown field ${detail.field}`).toBe(true);
        expect(typeof detail.message === "string" && detail.message.length > 0, where).toBe(true);
      }
    }
    expect(await snapshotTables(t().db.db), `${where}: a refused request changed rows`).toEqual(before);
    return { status: res.statusCode, error, where };
  }

  const urlOf = (route: RestRoute, params: Record<string, Segment>, query: string) =>
    route.path.replace(/:(\w+)/g, (_, name: string) => params[name]!.raw) + (query ? `?${query}` : "");

  async function check(built: Built, gen: Generated) {
    const { route } = built;
    const expected = expectedFor(built, gen);
    const { status, data, error, where } = await send(built, urlOf(route, gen.params, gen.query.text), gen.body);

    // A large body may meet the body size limit before anything else: the contract's 413.
    if (status === 413 && (gen.body?.text?.length ?? 0) > 16_384) return;
    switch (expected.kind) {
      case "malformed-url":
        expect([400, 404], where).toContain(status);
        return;
      case "status":
        expect({ status, code: error?.code }, where).toEqual({
          status: expected.status,
          code: expected.status === 413 ? "PAYLOAD_TOO_LARGE" : "VALIDATION_ERROR",
        });
        return;
      case "fields": {
        expect({ status, code: error?.code }, where).toEqual({ status: 400, code: "VALIDATION_ERROR" });
        const named = (error?.details ?? []).map((d) => d.field.split(".")[0]);
        for (const name of expected.names) expect(named, `${where}: details must name ${name}`).toContain(name);
        return;
      }
      case "not-found":
        expect({ status, code: error?.code, message: error?.message }, where).toEqual({
          status: 404,
          code: "NOT_FOUND",
          message: expected.message,
        });
        return;
      case "free":
        if (!error) return routeChecks(route, gen, data, where);
        if (error.code === "VALIDATION_ERROR") {
          if (route.path.endsWith("/cohorts/:id/activate")) expect(error.message, where).toMatch(/^Activation blocked/);
          // Anything else refused about a well-formed request is about its fields, and must say which.
          else expect(error.details?.length ?? 0, `${where}: a validation error must name the fields in details`).toBeGreaterThan(0);
        }
        if (idKind(route) === "Notification" && pools.othersNotificationIds.includes(gen.params.id!.decoded!.toLowerCase())) {
          expect({ status, message: error.message }, where).toEqual({ status: 403, message: "Access denied" });
        }
    }
  }

  const validProIdValue = (s: string) => codePoints(s) <= 200 && nonBlank(s) && storable(s);

  /** What a success must show: computed fields not taken from the caller, the caller's own records only. */
  function routeChecks(route: RestRoute, gen: Generated, data: unknown, where: string) {
    const key = routeKey(route);
    if (key === `POST ${R}/cohorts`) {
      expect(data, where).toMatchObject({ status: "pending", activatedAt: null, rollbackAt: null, rollbackReason: null });
    } else if (key === `POST ${R}/cohorts/:id/check-gates`) {
      const check = data as WireOutput<"restriction.checkGates">;
      const passes = (check.responseRate ?? 0) >= 0.6 && (check.comparisonsDone ?? 0) >= 50 && check.logLive && check.legalSignoff;
      expect({ allGatesMet: check.allGatesMet, blocked: check.blockedBy !== null }, where).toEqual({
        allGatesMet: passes,
        blocked: !passes,
      });
      expect(check.cohortId, where).toBe(gen.params.id!.decoded!.toLowerCase());
    } else if (key === `GET ${R}/:proId`) {
      expect((data as WireOutput<"restriction.getPro">).proId, where).toBe(gen.params.proId!.decoded);
    } else if (key === `GET ${N}`) {
      const page = data as WireOutput<"notifications.list">;
      expect(Number.isInteger(page.page) && page.page >= 1, where).toBe(true);
      expect(page.notifications.length, where).toBeLessThanOrEqual(100);
      for (const n of page.notifications) expect(n.userId, `${where}: someone else's notification listed`).toBe(admin.id);
    } else if (key === `POST ${N}/subscriptions`) {
      expect((data as WireOutput<"notifications.subscribe">).subscription, where).toMatchObject({ userId: admin.id, isActive: true });
    } else if (key === `DELETE ${N}/bulk`) {
      const { deleted } = data as WireOutput<"notifications.removeMany">;
      expect(Number.isInteger(deleted) && deleted >= 0, where).toBe(true);
    }
  }

  /** A route's models by `METHOD path`, built now that the pools exist. */
  const built = (key: string) => {
    const route = restRoutes.find((r) => routeKey(r) === key)!;
    return build(route, models[key]!);
  };

  /** Every generated request for `route` gets what the contract says (fast-check, NUM_RUNS runs). */
  async function holdsForGeneratedRequests(route: RestRoute) {
    const model = models[routeKey(route)];
    expect(model, `no generator for ${routeKey(route)}`).toBeDefined();
    const routeModels = build(route, model!);
    await fc.assert(
      fc.asyncProperty(requestArbitrary(routeModels, model!), (gen) => check(routeModels, gen)),
      { numRuns: NUM_RUNS },
    );
  }

  /** Nothing any request did (the admin's) reached the user's notifications. */
  async function expectOthersNotificationsUntouched() {
    const rows = await t().db.db.select().from(notifications).where(inArray(notifications.id, pools.othersNotificationIds));
    expect(rows.map((r) => ({ readAt: r.readAt, deletedAt: r.deletedAt }))).toEqual(
      pools.othersNotificationIds.map(() => ({ readAt: null, deletedAt: null })),
    );
    expect(rows.every((r) => r.userId === user.id)).toBe(true);
  }

  return {
    app: t,
    admin: () => admin,
    user: () => user,
    pools,
    models,
    built,
    send,
    holdsForGeneratedRequests,
    expectOthersNotificationsUntouched,
  };
}
