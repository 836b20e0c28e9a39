// A product instance for bench/propagation.ts: bench/product-server.ts with its Prometheus metrics served on
// METRICS_PORT, as server/main.ts serves them, so the bench can tell the answers memory gave from the
// database's (memory_reads_total). From build/, as product-server.ts runs the service: the sources' metrics
// module would be a second registry that nothing counts into.
import { builtServer as built } from "./child.js";

const { loadConfig } = (await import(built("config.js"))) as typeof import("../server/config.js");
const { startMetricsServer } = (await import(built("observability/metrics.js"))) as typeof import("../server/observability/metrics.js");

const { metricsPort, host } = loadConfig(process.env);
if (metricsPort !== null) await startMetricsServer({ port: metricsPort, host });
await import("./product-server.js");
