// The metrics (docs/operators.md#metrics) after real requests: a REST route with an id in its path, a tRPC call,
// a 404, a test push to a local push service and audited changes, read from the metrics listener; and the
// route template on every log line of a request. Counters are shared by every app of this process, so the
// tests compare before and after.
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { buildApp } from "../../server/app.js";
import { recordAudit } from "../../server/audit/record.js";
import { type MetricsServer, startMetricsServer } from "../../server/observability/metrics.js";
import { type LocalPushService, startPushService } from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";
import { registeredPro } from "../helpers/fixtures.js";
import { parseMetrics, type Sample, sampleValue } from "../helpers/metrics.js";
import { subscribeAt } from "../helpers/push.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

/** Every JSON line the app logged. */
const logLines: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split("\n").filter(Boolean)) logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

describe("metrics", () => {
  const t = useTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 2_000 },
    logger: { level: "info", stream: logStream },
  });
  let metrics: MetricsServer;
  let pushService: LocalPushService;
  beforeAll(async () => {
    metrics = await startMetricsServer({ port: 0, host: "127.0.0.1" });
    pushService = await startPushService();
  });
  afterAll(async () => {
    await metrics?.close();
    await pushService?.close();
  });

  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(metrics.url);
    expect(res.status).toBe(200);
    return parseMetrics(await res.text());
  };
  /** A sample's value, 0 when the text has none yet. */
  const valueIn = (samples: Sample[], name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels) ?? 0;

  const subscribe = (user: TestUser, endpoint: string) => subscribeAt(t(), user, endpoint);

  it("counts and times requests by method, route template (tRPC: procedure; no route: unmatched) and status", async () => {
    const admin = await t().signUp({ admin: true });
    const proId = await registeredPro(t().db.db);
    const rest = { method: "GET", route: "/api/admin/restriction/:proId", status_code: "200" };
    const trpc = { method: "GET", route: "trpc:notifications.unreadCount", status_code: "200" };
    const notFound = { method: "GET", route: "unmatched", status_code: "404" };
    // A HEAD request has a route of its own (Fastify makes it from the GET route): counted once, under HEAD.
    const head = { method: "HEAD", route: "/api/admin/restriction/:proId", status_code: "200" };
    // Refused while routing (Fastify's frameworkErrors, no hook runs): counted once, with no route.
    const malformed = { method: "GET", route: "unmatched", status_code: "400" };
    const before = await scrape();

    expect((await t().app.inject({ url: `/api/admin/restriction/${proId}`, headers: admin.headers })).statusCode).toBe(200);
    expect((await t().app.inject({ url: "/trpc/notifications.unreadCount", headers: admin.headers })).statusCode).toBe(200);
    expect((await t().app.inject({ url: `/no/such/route/${proId}` })).statusCode).toBe(404);
    expect((await t().app.inject({ method: "HEAD", url: `/api/admin/restriction/${proId}`, headers: admin.headers })).statusCode).toBe(200);
    expect((await t().app.inject({ url: "/api/admin/restriction/%E0%A4%A", headers: admin.headers })).statusCode).toBe(400);

    const after = await scrape();
    for (const labels of [rest, trpc, notFound, head, malformed]) {
      expect(valueIn(after, "http_requests_total", labels) - valueIn(before, "http_requests_total", labels)).toBe(1);
      const count = "http_request_duration_seconds_count";
      expect(valueIn(after, count, labels) - valueIn(before, count, labels)).toBe(1);
      expect(sampleValue(after, "http_request_duration_seconds_bucket", { le: "+Inf", ...labels })).toBeGreaterThanOrEqual(1);
    }
    // Labels hold templates only: no id from any path.
    const text = await (await fetch(metrics.url)).text();
    expect(text).not.toContain(proId);
    expect(text).not.toContain("/no/such/route");
  });

  it("counts push deliveries by result, and the audit event of each committed change by action", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    await subscribe(target, pushService.endpoint(201));
    await subscribe(target, pushService.endpoint(410));
    await subscribe(target, pushService.endpoint(500));
    const proId = await registeredPro(t().db.db);
    const before = await scrape();

    const push = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/push",
      headers: admin.headers,
      payload: { type: "system.ping", title: "Ping", targetUserId: target.id },
    });
    expect(push.json().data).toMatchObject({ sent: 1, failed: 2, deactivated: 1 });
    const activate = await t().app.inject({ method: "POST", url: `/api/admin/restriction/${proId}/activate`, headers: admin.headers });
    expect(activate.statusCode).toBe(200);
    // A refused change records nothing, so nothing is counted.
    const refused = await t().app.inject({
      method: "POST",
      url: `/api/admin/restriction/${proId}-unknown/activate`,
      headers: admin.headers,
    });
    expect(refused.statusCode).toBe(404);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueIn(after, name, labels) - valueIn(before, name, labels);
    expect(delta("push_deliveries_total", { result: "delivered" })).toBe(1);
    expect(delta("push_deliveries_total", { result: "gone" })).toBe(1);
    expect(delta("push_deliveries_total", { result: "failed" })).toBe(1);
    // Every result is there from the start, counted or not.
    expect(sampleValue(after, "push_deliveries_total", { result: "address_not_allowed" })).toBeGreaterThanOrEqual(0);
    expect(delta("audit_events_total", { action: "notification.test_push" })).toBe(1);
    expect(delta("audit_events_total", { action: "pro.activate" })).toBe(1);
    expect(delta("http_requests_total", { method: "POST", route: "/api/admin/restriction/:proId/activate", status_code: "200" })).toBe(1);
    expect(delta("http_requests_total", { method: "POST", route: "/api/admin/restriction/:proId/activate", status_code: "404" })).toBe(1);
  });

  it("counts an audit event once its transaction commits, and never when it rolls back", async () => {
    const admin = await t().signUp({ admin: true });
    const source = { actor: { id: admin.id, email: admin.email }, requestId: null };
    const entry = { action: "subscriptions.clear", target: { type: "user", id: admin.id }, before: null, after: null } as const;
    const counted = async () => valueIn(await scrape(), "audit_events_total", { action: "subscriptions.clear" });
    const start = await counted();

    await expect(
      t().db.db.transaction(async (tx) => {
        await recordAudit(tx, source, entry);
        throw new Error("the change fails after its event was written");
      }),
    ).rejects.toThrow("the change fails");
    expect(await counted()).toBe(start);

    await t().db.db.transaction(async (tx) => {
      await recordAudit(tx, source, entry);
      // Written but not committed yet: not counted yet.
      expect(await counted()).toBe(start);
    });
    expect(await counted()).toBe(start + 1);
  });

  it("reports database work in flight and its duration, open streams and the process", async () => {
    const before = await scrape();
    await t().app.inject({ url: "/health/ready" });
    // A transaction held open is in flight until it ends.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = t().db.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await held;
    });
    const inFlight = async () => valueIn(await scrape(), "db_queries_in_flight", { kind: "transaction" });
    await expect.poll(inFlight).toBeGreaterThanOrEqual(1);
    const whileHeld = await inFlight();
    release();
    await transaction;

    const after = await scrape();
    expect(valueIn(after, "db_queries_in_flight", { kind: "transaction" })).toBe(whileHeld - 1);
    expect(sampleValue(after, "db_queries_in_flight", { kind: "statement" })).toBeGreaterThanOrEqual(0);
    const count = "db_query_duration_seconds_count";
    expect(valueIn(after, count, { kind: "statement" })).toBeGreaterThan(valueIn(before, count, { kind: "statement" }));
    expect(valueIn(after, count, { kind: "transaction" })).toBe(valueIn(before, count, { kind: "transaction" }) + 1);
    expect(sampleValue(after, "notification_streams_open")).toBe(0);
    expect(sampleValue(after, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sampleValue(after, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
  });

  it("puts the request id and route template on every log line of a request", async () => {
    const admin = await t().signUp({ admin: true });
    const proId = await registeredPro(t().db.db);
    await t().app.inject({ url: `/api/admin/restriction/${proId}`, headers: { ...admin.headers, "x-request-id": `rest-${proId}` } });
    await t().app.inject({ url: `/nowhere/${proId}`, headers: { "x-request-id": `none-${proId}` } });
    await t().app.inject({ url: "/trpc/notifications.unreadCount", headers: { ...admin.headers, "x-request-id": `trpc-${proId}` } });

    const linesOf = (reqId: string) => logLines.filter((line) => line.reqId === reqId);
    for (const [reqId, route] of [
      [`rest-${proId}`, "/api/admin/restriction/:proId"],
      [`none-${proId}`, "unmatched"],
      [`trpc-${proId}`, "/trpc/:path"],
    ] as const) {
      const lines = linesOf(reqId);
      // One line per answer (LOG_REQUESTS=completed, issue AE), carrying the request's own fields.
      expect(lines.map((line) => line.msg)).toEqual(["request completed"]);
      expect(lines[0]).toMatchObject({ req: { method: "GET" }, res: { statusCode: expect.any(Number) } });
      for (const line of lines) expect(line.route).toBe(route);
    }
  });

  it("lets a second app be built in the same process", async () => {
    const { db, auth, push } = t();
    const second = await buildApp({ config: { corsOrigins: [], logLevel: "silent" }, db: db.db, auth, push, logger: false });
    try {
      expect((await second.inject({ url: "/health/live" })).statusCode).toBe(200);
    } finally {
      await second.close();
    }
  });
});
