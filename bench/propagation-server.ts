// A product instance for bench/propagation.ts: bench/product-server.ts with its Prometheus metrics served on
// METRICS_PORT, as server/main.ts serves them, so the bench can tell the answers memory gave from the
// database's (memory_reads_total).
import { loadConfig } from "../server/config.js";
import { startMetricsServer } from "../server/observability/metrics.js";

const { metricsPort, host } = loadConfig(process.env);
if (metricsPort !== null) await startMetricsServer({ port: metricsPort, host });
await import("./product-server.js");
