// The real server process with METRICS_PORT: Prometheus text on that port, none on the API port, the
// listener closed with the app on SIGTERM; a METRICS_PORT that cannot work stops start-up with one line.
import { describe, expect, it } from "vitest";
import { parseMetrics, sampleValue } from "../helpers/metrics.js";
import { freePort } from "../helpers/net.js";
import { runUntilExit, startServerProcess, useProcessDatabase } from "../helpers/server-process.js";

describe("METRICS_PORT", () => {
  const databaseEnv = useProcessDatabase();

  it("serves GET /metrics on its own port until SIGTERM", async () => {
    const metricsPort = await freePort();
    const server = await startServerProcess({ ...databaseEnv(), METRICS_PORT: String(metricsPort) });
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    let stopped = false;
    try {
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(404);

      const res = await fetch(metricsUrl);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const samples = parseMetrics(await res.text());
      // The start-up helper waited on /health/ready; the requests above are counted by their templates.
      expect(
        sampleValue(samples, "http_requests_total", { method: "GET", route: "/health/ready", status_code: "200" }),
      ).toBeGreaterThanOrEqual(1);
      expect(sampleValue(samples, "http_requests_total", { method: "GET", route: "/health/live", status_code: "200" })).toBe(1);
      expect(sampleValue(samples, "http_requests_total", { method: "GET", route: "unmatched", status_code: "404" })).toBe(1);
      expect(sampleValue(samples, "db_query_duration_seconds_count", { kind: "statement" })).toBeGreaterThan(0);
      // A gauge of the moment: the background jobs (the outbox relay, the push queue, the audit sealer) may hold
      // a transaction of their own just as the scrape reads it.
      expect(sampleValue(samples, "db_queries_in_flight", { kind: "transaction" })).toBeGreaterThanOrEqual(0);
      expect(sampleValue(samples, "notification_streams_open")).toBe(0);
      expect(sampleValue(samples, "push_deliveries_total", { result: "delivered" })).toBe(0);
      expect(sampleValue(samples, "audit_events_total", { action: "pro.activate" })).toBe(0);
      expect(sampleValue(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);

      const exit = await server.stop();
      stopped = true;
      expect(exit.code).toBe(0);
      await expect(fetch(metricsUrl)).rejects.toThrow();
    } finally {
      if (!stopped) await server.stop();
    }
  });

  it("stops start-up with one line when METRICS_PORT is not a port or is the API port", async () => {
    const notAPort = await runUntilExit({ ...databaseEnv(), METRICS_PORT: "metrics" });
    expect(notAPort.code).not.toBe(0);
    expect(notAPort.stderr.trim()).toMatch(/^METRICS_PORT: [^\n]+$/);

    const port = String(await freePort());
    const same = await runUntilExit({ ...databaseEnv(), PORT: port, METRICS_PORT: port });
    expect(same.code).not.toBe(0);
    expect(same.stderr.trim()).toBe("METRICS_PORT: must differ from PORT (metrics are never served on the API port)");
  });
});
