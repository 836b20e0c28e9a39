// The HTTP scenarios: for each, the request every target gets (product REST, product tRPC, floor) and a
// check of one answer, so that a broken route or a wrong token fails the run instead of measuring errors.
import type { RequestPlan } from "./load.js";

export type TargetKind = "rest" | "trpc" | "floor";

export type Scenario = {
  name: string;
  /** What it does, for the table's legend. */
  title: string;
  /** Reads count towards the "≥ 0.8× the floor" target; writes are reported only. */
  read: boolean;
  plan(target: TargetKind): RequestPlan;
  /** The payload as a plain object, whatever the target's wrapping; throws when the answer is wrong. */
  unwrap(target: TargetKind, status: number, body: unknown): unknown;
};

export type ScenarioInputs = {
  hotToken: string;
  adminToken: string;
  notificationIds: string[];
  proIds: string[];
};

const trpcQuery = (procedure: string, input: unknown) => `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;

function unwrapAny(target: TargetKind, status: number, body: unknown): unknown {
  if (status !== 200) throw new Error(`HTTP ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  // biome-ignore lint/suspicious/noExplicitAny: a bench-only reader of either door's answer, shape checked below
  const b = body as Record<string, any>;
  if (target === "rest") {
    if (b?.success !== true) throw new Error(`no success envelope: ${JSON.stringify(body).slice(0, 300)}`);
    return b.data;
  }
  if (target === "trpc") {
    if (!b?.result?.data || !("json" in b.result.data)) throw new Error(`not a tRPC result: ${JSON.stringify(body).slice(0, 300)}`);
    return b.result.data.json;
  }
  return body;
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

export function buildScenarios(inputs: ScenarioInputs): Scenario[] {
  const hot = { authorization: `Bearer ${inputs.hotToken}` };
  const admin = { authorization: `Bearer ${inputs.adminToken}` };
  const ids = inputs.notificationIds;
  const pros = inputs.proIds;
  return [
    listScenario("list", "GET /api/notifications?page=1&limit=30 (hot user, 10,000 notifications)", {}, inputs),
    listScenario("list-category", "the same with category=billing", { category: "billing" }, inputs),
    listScenario("list-search", "the same with search=refund (5 % of rows match)", { search: "refund" }, inputs),
    {
      name: "unread-count",
      title: "GET /api/notifications/unread-count (hot user)",
      read: true,
      plan: (target) =>
        target === "trpc"
          ? { method: "GET", path: "/trpc/notifications.unreadCount", headers: hot }
          : { method: "GET", path: "/api/notifications/unread-count", headers: hot },
      unwrap(target, status, body) {
        const data = unwrapAny(target, status, body) as { count?: unknown };
        if (typeof data?.count !== "number") throw new Error(`expected {count}, got ${JSON.stringify(data)}`);
        return data;
      },
    },
    {
      name: "pro-status",
      title: "GET /api/admin/restriction/:proId (admin; 10,000 pros in rotation)",
      read: true,
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
  ];
}
