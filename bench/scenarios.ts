// The HTTP scenarios: for each, the request every target gets (product REST, product tRPC, floor; the
// OFREP scenarios: product OFREP, floor) and a check of one answer, so that a broken route or a wrong token
// fails the run instead of measuring errors.
import { createHmac } from "node:crypto";
import type { RequestPlan } from "./load.js";

/** better-auth's session cookie on plain http (the bench's servers), which the floor reads too. */
export const SESSION_COOKIE = "better-auth.session_token";

/** The Cookie header a browser sends for this session: the token signed as better-auth signs it, URL-encoded. */
export const sessionCookieHeader = (token: string, secret: string) =>
  `${SESSION_COOKIE}=${encodeURIComponent(`${token}.${createHmac("sha256", secret).update(token).digest("base64")}`)}`;

/** bare: Fastify alone with constant answers (bench/bare.ts), the ceiling of the from-memory reads. */
export type TargetKind = "rest" | "trpc" | "ofrep" | "floor" | "bare";

/** The targets of a scenario that names none: the floor first (the ratios are to it), then both doors. */
export const DEFAULT_TARGETS: readonly TargetKind[] = ["floor", "rest", "trpc"];
/** The from-memory reads on the REST door: the floor, then the bare ceiling, then both doors. */
const FROM_MEMORY_TARGETS: readonly TargetKind[] = ["floor", "bare", "rest", "trpc"];

export type Scenario = {
  name: string;
  /** What it does, for the table's legend. */
  title: string;
  /** Reads must answer alike on every target but bare (its answers are constant); writes are reported only. */
  read: boolean;
  /** The targets it runs on, the floor first (DEFAULT_TARGETS when absent). */
  targets?: readonly TargetKind[];
  plan(target: TargetKind): RequestPlan;
  /** The payload as a plain object, whatever the target's wrapping; throws when the answer is wrong. */
  unwrap(target: TargetKind, status: number, body: unknown): unknown;
};

export type ScenarioInputs = {
  hotToken: string;
  adminToken: string;
  notificationIds: string[];
  proIds: string[];
  /** The hot user's session as a browser sends it (Cookie header), for unread-count-cookie; left out without it. */
  hotCookie?: string;
  /** The seeded service API key (X-API-Key of the OFREP scenarios). */
  apiKey: string;
  /** The ETag the product's bulk evaluation gives each pro of proIds (same order), for ofrep-bulk-304. */
  proEtags?: string[];
};

const trpcQuery = (procedure: string, input: unknown) => `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;

function unwrapAny(target: TargetKind, status: number, body: unknown): unknown {
  if (status !== 200) throw new Error(`HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  // biome-ignore lint/suspicious/noExplicitAny: a bench-only reader of either door's answer, shape checked below
  const b = body as Record<string, any>;
  if (target === "rest" || target === "bare") {
    if (b?.success !== true) throw new Error(`no success envelope: ${JSON.stringify(body).slice(0, 300)}`);
    return b.data;
  }
  if (target === "trpc") {
    if (!b?.result?.data || !("json" in b.result.data)) throw new Error(`not a tRPC result: ${JSON.stringify(body).slice(0, 300)}`);
    return b.result.data.json;
  }
  return body;
}

function unreadCountOf(target: TargetKind, status: number, body: unknown): unknown {
  const data = unwrapAny(target, status, body) as { count?: unknown };
  if (typeof data?.count !== "number") throw new Error(`expected {count}, got ${JSON.stringify(data)}`);
  return data;
}

function listScenario(name: string, title: string, query: Record<string, string>, inputs: ScenarioInputs): Scenario {
  const search = new URLSearchParams({ page: "1", limit: "30", ...query }).toString();
  return {
    name,
    title,
    read: true,
    plan(target) {
      const headers = { authorization: `Bearer ${inputs.hotToken}` };
      if (target === "trpc") return { method: "GET", path: trpcQuery("notifications.list", { page: 1, limit: 30, ...query }), headers };
      return { method: "GET", path: `/api/notifications?${search}`, headers };
    },
    unwrap(target, status, body) {
      const data = unwrapAny(target, status, body) as { notifications?: unknown[]; total?: number; unread_count?: number };
      if (!Array.isArray(data?.notifications) || data.notifications.length !== 30) {
        throw new Error(`expected a page of 30 notifications, got ${JSON.stringify(data).slice(0, 300)}`);
      }
      const ids = data.notifications.map((n) => (n as { id: string }).id);
      return { total: data.total, unread_count: data.unread_count, ids };
    },
  };
}

/** An OFREP evaluation as both targets answer it; throws unless it is one of the flag. */
function evaluationOf(value: unknown): unknown {
  // biome-ignore lint/suspicious/noExplicitAny: a bench-only reader, shape checked here
  const e = value as Record<string, any>;
  if (
    e?.key !== "restrict-direct-contact" ||
    typeof e.value !== "boolean" ||
    !["TARGETING_MATCH", "DEFAULT"].includes(e.reason) ||
    e.variant !== (e.value ? "on" : "off") ||
    typeof e.metadata !== "object"
  ) {
    throw new Error(`expected an evaluation of restrict-direct-contact, got ${JSON.stringify(value).slice(0, 300)}`);
  }
  return e;
}

/** The OFREP scenarios: the product's OFREP door and the floor's twin of it, pro ids in rotation. */
function ofrepScenarios(inputs: ScenarioInputs): Scenario[] {
  const pros = inputs.proIds;
  const headers = { "x-api-key": inputs.apiKey, "content-type": "application/json" };
  const targets: readonly TargetKind[] = ["floor", "bare", "ofrep"];
  const context = (i: number) => JSON.stringify({ context: { targetingKey: pros[i % pros.length] } });
  const evaluationPath = "/ofrep/v1/evaluate/flags/restrict-direct-contact";
  const bulkPath = "/ofrep/v1/evaluate/flags";
  return [
    {
      name: "ofrep-eval",
      title: `POST ${evaluationPath} (X-API-Key; 10,000 pros in rotation)`,
      read: true,
      targets,
      plan: () => ({
        method: "POST",
        path: evaluationPath,
        headers,
        body: context(0),
        next: (i) => ({ path: evaluationPath, body: context(i) }),
      }),
      unwrap(_target, status, body) {
        if (status !== 200) throw new Error(`HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
        return evaluationOf(body);
      },
    },
    {
      name: "ofrep-bulk",
      title: `POST ${bulkPath} (X-API-Key; 10,000 pros in rotation): the flag, its ETag and a signed event stream URL`,
      read: true,
      targets,
      plan: () => ({ method: "POST", path: bulkPath, headers, body: context(0), next: (i) => ({ path: bulkPath, body: context(i) }) }),
      unwrap(_target, status, body) {
        if (status !== 200) throw new Error(`HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
        const b = body as { flags?: unknown[]; eventStreams?: { type?: string; url?: string }[] };
        const stream = b?.eventStreams?.[0];
        if (
          !Array.isArray(b?.flags) ||
          b.flags.length !== 1 ||
          stream?.type !== "sse" ||
          !stream.url?.includes("/ofrep/v1/events?token=")
        ) {
          throw new Error(`expected {flags: [one], eventStreams: [sse]}, got ${JSON.stringify(body).slice(0, 300)}`);
        }
        // The stream URL's token carries its expiry (a clock reading): the targets agree on everything else.
        return { flags: b.flags.map(evaluationOf), eventStreams: b.eventStreams!.map((s) => s.type) };
      },
    },
    {
      name: "ofrep-bulk-304",
      title: `POST ${bulkPath} with If-None-Match: the pro's current ETag (304, no body; 10,000 pros in rotation)`,
      read: true,
      targets,
      plan() {
        const etags = inputs.proEtags;
        if (etags?.length !== pros.length) throw new Error("ofrep-bulk-304 needs every pro's ETag (proEtags)");
        const next = (i: number) => ({ path: bulkPath, body: context(i), headers: { "if-none-match": etags[i % pros.length]! } });
        return { method: "POST", path: bulkPath, headers, body: context(0), next, expectStatus: 304 };
      },
      unwrap(_target, status, body) {
        if (status !== 304) throw new Error(`expected 304, got HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
        return { status };
      },
    },
  ];
}

export function buildScenarios(inputs: ScenarioInputs): Scenario[] {
  const hot = { authorization: `Bearer ${inputs.hotToken}` };
  const admin = { authorization: `Bearer ${inputs.adminToken}` };
  const ids = inputs.notificationIds;
  const pros = inputs.proIds;
  const scenarios: Scenario[] = [
    listScenario("list", "GET /api/notifications?page=1&limit=30 (hot user, 10,000 notifications)", {}, inputs),
    listScenario("list-category", "the same with category=billing", { category: "billing" }, inputs),
    listScenario("list-search", "the same with search=refund (5 % of rows match)", { search: "refund" }, inputs),
    {
      name: "unread-count",
      title: "GET /api/notifications/unread-count (hot user)",
      read: true,
      targets: FROM_MEMORY_TARGETS,
      plan: (target) =>
        target === "trpc"
          ? { method: "GET", path: "/trpc/notifications.unreadCount", headers: hot }
          : { method: "GET", path: "/api/notifications/unread-count", headers: hot },
      unwrap: unreadCountOf,
    },
    {
      name: "unread-count-cookie",
      title: "the same with the session cookie a browser sends (the console), REST",
      read: true,
      targets: ["floor", "rest"],
      plan: () => ({ method: "GET", path: "/api/notifications/unread-count", headers: { cookie: inputs.hotCookie ?? "" } }),
      unwrap: unreadCountOf,
    },
    {
      name: "pro-status",
      title: "GET /api/admin/restriction/:proId (admin; 10,000 pros in rotation)",
      read: true,
      targets: FROM_MEMORY_TARGETS,
      plan(target) {
        const path = (i: number) =>
          target === "trpc"
            ? trpcQuery("restriction.getPro", { proId: pros[i % pros.length] })
            : `/api/admin/restriction/${pros[i % pros.length]}`;
        return { method: "GET", path: path(0), headers: admin, next: (i) => ({ path: path(i) }) };
      },
      unwrap(target, status, body) {
        const data = unwrapAny(target, status, body) as { proId?: unknown; restrictionActive?: unknown };
        if (typeof data?.proId !== "string" || typeof data.restrictionActive !== "boolean") {
          throw new Error(`expected a pro status, got ${JSON.stringify(data)}`);
        }
        return { proId: data.proId, restrictionActive: data.restrictionActive };
      },
    },
    {
      name: "mark-read",
      title: "PATCH /api/notifications/:id/read (hot user; 1,000 ids in rotation)",
      read: false,
      plan(target) {
        if (target === "trpc") {
          const body = (i: number) => JSON.stringify({ json: { id: ids[i % ids.length] } });
          return {
            method: "POST",
            path: "/trpc/notifications.markRead",
            headers: { ...hot, "content-type": "application/json" },
            body: body(0),
            next: (i) => ({ path: "/trpc/notifications.markRead", body: body(i) }),
          };
        }
        const path = (i: number) => `/api/notifications/${ids[i % ids.length]}/read`;
        return { method: "PATCH", path: path(0), headers: hot, next: (i) => ({ path: path(i) }) };
      },
      unwrap(target, status, body) {
        const data = unwrapAny(target, status, body) as { success?: unknown };
        if (data?.success !== true) throw new Error(`expected {success: true}, got ${JSON.stringify(data)}`);
        return data;
      },
    },
    ...ofrepScenarios(inputs),
  ];
  return scenarios.filter((s) => s.name !== "unread-count-cookie" || inputs.hotCookie);
}
