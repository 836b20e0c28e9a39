// CLUSTER_WORKERS > 1 (docs/scaling.md, "One instance per core"): this process is node:cluster's primary. It
// serves nothing itself; its workers, each a whole instance (server/main.ts) with its own memory and pool,
// share PORT, and the primary hands each new connection to the next worker in turn. PostgreSQL only
// (config.ts refuses PGlite): the instances share state through the database as separate hosts would.
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import { passwordMismatchLine } from "./auth/admin-bootstrap.js";
import type { Config } from "./config.js";
import { clusterMetricsSource, type MetricsServer, startMetricsServer } from "./observability/metrics.js";
import { checkPortFree } from "./port-check.js";
import { prepareDatabase } from "./service.js";

/**
 * Prepares the database once, forks the workers and keeps their number: a worker that dies after it served
 * is replaced; one that dies before it ever listened stops the whole cluster (its error would only repeat).
 * SIGTERM/SIGINT go on to every worker, each drains as a single instance does, and the primary exits last.
 */
export async function runPrimary(config: Config, log: Logger): Promise<void> {
  await checkPortFree(config.host, config.port);
  const bootstrap = await prepareDatabase(config);
  for (const warning of config.warnings) log.warn(warning);
  if (bootstrap?.created) log.info({ email: bootstrap.email }, "created the admin account from ADMIN_EMAIL");
  if (bootstrap?.passwordMatches === false) log.warn(passwordMismatchLine(bootstrap.email, false));
  // One scrape answers for every worker: a worker's own metrics listener would take turns with the others on one port.
  const metrics: MetricsServer | null =
    config.metricsPort === null
      ? null
      : await startMetricsServer({ port: config.metricsPort, host: config.host, source: clusterMetricsSource() });

  const served = new Set<Worker>();
  let stopping = false;
  let failed = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once("exit", () => resolve());
            w.process.kill("SIGTERM");
          }),
      ),
    );
    await metrics?.close();
    process.exit(failed ? 1 : code);
  };

  cluster.on("listening", (worker) => {
    served.add(worker);
    if (served.size === config.clusterWorkers) {
      log.info({ workers: config.clusterWorkers }, `serving on ${config.baseUrl} with ${config.clusterWorkers} workers`);
    }
  });
  cluster.on("exit", (worker, code, signal) => {
    if (stopping) return;
    const how = signal ?? `code ${code}`;
    if (!served.has(worker)) {
      log.error({ pid: worker.process.pid }, `a worker exited (${how}) before it served: stopping the cluster`);
      failed = true;
      void stopAll(1);
      return;
    }
    log.error({ pid: worker.process.pid }, `a worker exited (${how}); starting another`);
    cluster.fork();
  });
  process.on("SIGTERM", () => void stopAll(0));
  process.on("SIGINT", () => void stopAll(0));
  if (metrics) log.info(`metrics of every worker on ${metrics.url}`);
  for (let i = 0; i < config.clusterWorkers; i++) cluster.fork();
}
