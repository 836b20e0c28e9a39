// http_requests_total and http_request_duration_seconds are counted in plain numbers (request-series.ts) instead
// of prom-client's Counter and Histogram: a scrape, the JSON the cluster aggregates, and a reset must read
// exactly as prom-client's own would for the same requests.
import fc from "fast-check";
import { AggregatorRegistry, Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { DURATION_BUCKETS, RequestSeries } from "../../server/observability/request-series.js";

const names = { count: "http_requests_total", duration: "http_request_duration_seconds" };
const help = { count: "answered", duration: "arrival to answer" };

/** The same metrics as prom-client makes them, in a registry of their own. */
function promClientTwin() {
  const registry = new Registry();
  const labelNames = ["method", "route", "status_code"] as const;
  const counter = new Counter({ name: names.count, help: help.count, labelNames, registers: [registry] });
  const histogram = new Histogram({ name: names.duration, help: help.duration, labelNames, registers: [registry] });
  return {
    registry,
    record(method: string, route: string, status: number, seconds: number) {
      const labels = { method, route, status_code: String(status) };
      counter.inc(labels);
      histogram.observe(labels, seconds);
    },
  };
}

function ours() {
  const registry = new Registry();
  const series = new RequestSeries(names, help);
  series.registerIn(registry);
  return { registry, record: series.record.bind(series) };
}

const answered = fc.record({
  method: fc.constantFrom("GET", "POST", "PATCH"),
  route: fc.constantFrom("/ofrep/v1/evaluate/flags/:key", "/api/notifications", "trpc:notifications.list", "unmatched"),
  status: fc.constantFrom(200, 304, 400, 429, 503),
  // Bounds themselves are drawn often: a value on a bound is counted in that bucket (`le`).
  seconds: fc.oneof(fc.constantFrom(0, ...DURATION_BUCKETS), fc.double({ min: 0, max: 20, noNaN: true })),
});

describe("RequestSeries: the request metrics read as prom-client's", () => {
  it("scrapes to the same text, in the same order of series", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answered, { maxLength: 60 }), async (requests) => {
        const [theirs, mine] = [promClientTwin(), ours()];
        for (const r of requests) {
          theirs.record(r.method, r.route, r.status, r.seconds);
          mine.record(r.method, r.route, r.status, r.seconds);
        }
        expect(await mine.registry.metrics()).toBe(await theirs.registry.metrics());
      }),
    );
  });

  it("aggregates across cluster workers as prom-client's do", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(answered, { maxLength: 20 }), { minLength: 1, maxLength: 3 }), async (workers) => {
        const theirs = workers.map(() => promClientTwin());
        const mine = workers.map(() => ours());
        workers.forEach((requests, w) => {
          for (const r of requests) {
            theirs[w]!.record(r.method, r.route, r.status, r.seconds);
            mine[w]!.record(r.method, r.route, r.status, r.seconds);
          }
        });
        const aggregate = async (registries: Registry[]) =>
          AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON()))).metrics();
        expect(await aggregate(mine.map((m) => m.registry))).toBe(await aggregate(theirs.map((t) => t.registry)));
      }),
    );
  });

  it("starts again from nothing after a reset", async () => {
    const mine = ours();
    mine.record("GET", "/api/notifications", 200, 0.003);
    mine.registry.resetMetrics();
    mine.record("GET", "/api/notifications", 200, 0.2);
    const count = (await mine.registry.getSingleMetric(names.count)!.get()).values;
    expect(count).toEqual([{ labels: { method: "GET", route: "/api/notifications", status_code: "200" }, value: 1 }]);
  });
});
