import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type MetricsServer,
  notificationStreamsOpen,
  routeLabel,
  startMetricsServer,
  streamOpened,
  trpcRoutes,
} from "../../server/observability/metrics.js";

describe("routeLabel: a request's route label", () => {
  const trpc = trpcRoutes("/trpc/:path", ["notifications.list", "restriction.getProStatus"]);

  it("is the route's template, never the URL", () => {
    expect(routeLabel("/api/admin/restriction/:proId", { proId: "pro-123" }, trpc)).toBe("/api/admin/restriction/:proId");
    expect(routeLabel("/health/live", {}, trpc)).toBe("/health/live");
  });

  it("is `unmatched` when no route matched", () => {
    expect(routeLabel(undefined, {}, trpc)).toBe("unmatched");
  });

  it("names a tRPC call by its procedure, and only a procedure that exists", () => {
    expect(routeLabel("/trpc/:path", { path: "notifications.list" }, trpc)).toBe("trpc:notifications.list");
    expect(routeLabel("/trpc/:path", { path: "notifications.nothing" }, trpc)).toBe("trpc:unknown");
    expect(routeLabel("/trpc/:path", { path: "" }, trpc)).toBe("trpc:unknown");
    expect(routeLabel("/trpc/:path", undefined, trpc)).toBe("trpc:unknown");
  });

  it("gives a batch of calls one label, whatever it holds", () => {
    expect(routeLabel("/trpc/:path", { path: "notifications.list,restriction.getProStatus" }, trpc)).toBe("trpc:batch");
    expect(routeLabel("/trpc/:path", { path: "notifications.list,made.up" }, trpc)).toBe("trpc:batch");
  });
});

describe("streamOpened", () => {
  it("counts a stream until its closer runs, once however often it is called", async () => {
    const before = (await notificationStreamsOpen.get()).values[0]!.value;
    const closeFirst = streamOpened();
    const closeSecond = streamOpened();
    expect((await notificationStreamsOpen.get()).values[0]!.value).toBe(before + 2);
    closeFirst();
    closeFirst();
    expect((await notificationStreamsOpen.get()).values[0]!.value).toBe(before + 1);
    closeSecond();
    expect((await notificationStreamsOpen.get()).values[0]!.value).toBe(before);
  });
});

describe("the metrics listener", () => {
  let server: MetricsServer;
  beforeAll(async () => {
    server = await startMetricsServer({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers GET /metrics with Prometheus text, the process metrics included", async () => {
    const res = await fetch(server.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^# TYPE http_requests_total counter$/m);
    expect(text).toMatch(/^# TYPE notification_streams_open gauge$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
  });

  it("answers nothing else", async () => {
    const origin = new URL(server.url).origin;
    expect((await fetch(`${origin}/`)).status).toBe(404);
    expect((await fetch(`${origin}/metrics/x`)).status).toBe(404);
    expect((await fetch(server.url, { method: "POST" })).status).toBe(405);
  });

  it("closes with a scraper's keep-alive connection still open", async () => {
    const other = await startMetricsServer({ port: 0, host: "127.0.0.1" });
    await fetch(other.url, { headers: { connection: "keep-alive" } }).then((r) => r.text());
    await other.close();
    await expect(fetch(other.url)).rejects.toThrow();
  });
});
