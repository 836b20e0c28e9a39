// CLUSTER_WORKERS=2 (server/cluster.ts): the real server process as node:cluster's primary with two workers
// behind one port. Both answer (each request's log line names its process), one scrape of the primary's
// METRICS_PORT counts the requests of both, a worker that crashes is replaced, and SIGTERM stops the primary
// after both workers drained.
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/net.js";
import { startServerProcess, useProcessDatabase } from "../helpers/server-process.js";
import { waitFor } from "../helpers/wait.js";

if (!process.env.TEST_DATABASE_URL) throw new Error("test/postgres runs against PostgreSQL only (TEST_DATABASE_URL)");

const REQUESTS = 20;

/** The pids of the processes that logged "request completed" for `route`, from pino's JSON lines. */
function answeringPids(output: string, route: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { pid?: number; msg?: string; route?: string };
    if (entry.msg === "request completed" && entry.route === route && entry.pid !== undefined) pids.add(entry.pid);
  }
  return pids;
}

describe("CLUSTER_WORKERS=2 on PostgreSQL", () => {
  const database = useProcessDatabase();

  it("serves one port from two workers, sums their metrics, replaces a crashed one, and drains both on SIGTERM", async () => {
    const metricsPort = await freePort();
    const server = await startServerProcess({
      ...database(),
      CLUSTER_WORKERS: "2",
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: "info",
    });
    try {
      // /health/ready answered from the first worker; the primary says when both listen.
      await waitFor(
        async () => server.output(),
        (out) => out.includes("with 2 workers"),
        { withinMs: 60_000, what: "both workers listening" },
      );
      // A new connection each: the primary hands connections to the workers in turn.
      for (let i = 0; i < REQUESTS; i++) {
        const res = await fetch(`${server.url}/health/live`, { headers: { connection: "close" } });
        expect(res.status).toBe(200);
      }
      const pids = await waitFor(
        async () => answeringPids(server.output(), "/health/live"),
        (p) => p.size === 2,
        { withinMs: 10_000, what: "answers from two processes" },
      );
      expect(pids.has(server.pid)).toBe(false);

      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text());
      const line = scrape.split("\n").find((l) => l.startsWith('http_requests_total{method="GET",route="/health/live",status_code="200"}'));
      expect(Number(line?.split(" ").pop())).toBe(REQUESTS);

      // A worker that dies (a crash) is replaced, and the port keeps answering meanwhile from the other.
      const [crashed] = [...pids];
      process.kill(crashed!, "SIGKILL");
      await waitFor(
        async () => server.output().match(/Server listening at/g)?.length ?? 0,
        (n) => n === 3,
        { withinMs: 60_000, what: "a third worker listening" },
      );
      expect(server.output()).toMatch(/a worker exited \(SIGKILL\); starting another/);
      expect((await fetch(`${server.url}/health/live`)).status).toBe(200);
    } finally {
      const exit = await server.stop();
      expect(exit.code).toBe(0);
      expect(server.output().match(/shutting down: finishing in-flight requests/g)?.length).toBe(2);
    }
  });
});
