// Entry point: read config, open the database, build the app, listen (and serve metrics on METRICS_PORT);
// drain on SIGTERM/SIGINT. With CLUSTER_WORKERS > 1 this process is the primary (server/cluster.ts) and each
// worker runs the rest of main() on a database the primary has prepared.
import cluster from "node:cluster";
import { pino } from "pino";
import { FolderInUseError } from "../db/folder-lock.js";
import { adminCount, passwordMismatchLine } from "./auth/admin-bootstrap.js";
import { runPrimary } from "./cluster.js";
import { ConfigError, loadConfig } from "./config.js";
import { answerClusterScrapes, type MetricsServer, startMetricsServer } from "./observability/metrics.js";
import { checkPortFree, portError } from "./port-check.js";
import { openService } from "./service.js";

async function main() {
  const config = loadConfig();
  const worker = cluster.isWorker;
  const database = config.databaseUrl ? "PostgreSQL" : `PGlite (${config.pgliteDir})`;
  // The app's logger exists only once the database is open; a first start migrates for a while before that.
  const startLog = pino({ level: config.logLevel });
  if (config.clusterWorkers > 1 && cluster.isPrimary) {
    startLog.info({ database, workers: config.clusterWorkers }, "starting a cluster: applying migrations, then forking the workers");
    return runPrimary(config, startLog);
  }
  // A worker's listen is the primary's port, shared: only a process of its own checks it first.
  if (!worker) await checkPortFree(config.host, config.port);
  if (!worker) startLog.info({ database }, "starting: opening the database and applying migrations");
  const { app, handle, bootstrap } = await openService(config, { prepared: worker });
  for (const warning of worker ? [] : config.warnings) app.log.warn(warning);
  if (bootstrap?.created) app.log.info({ email: bootstrap.email }, "created the admin account from ADMIN_EMAIL");
  if (bootstrap?.passwordMatches === false) app.log.warn(passwordMismatchLine(bootstrap.email, handle.driver === "pglite"));
  const admins = worker ? null : await adminCount(handle.db);
  if (admins === null) {
    // A worker: the primary has said it all once.
  } else if (admins === 0) {
    app.log.warn(
      `no admin account yet, so nobody can sign in to the console: start with ADMIN_EMAIL=you@example.com ADMIN_PASSWORD=<12+ characters> npm start, or ${handle.driver === "pglite" ? "stop the server and " : ""}run npm run db:seed`,
    );
  } else {
    app.log.info(`admin accounts: ${admins}`);
  }
  let metrics: MetricsServer | null = null;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: finishing in-flight requests");
    try {
      // Stops accepting, waits for in-flight requests (still observable meanwhile), then the database goes.
      await app.close();
      await metrics?.close();
      await handle.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  if (config.metricsPort !== null && worker) {
    answerClusterScrapes();
  } else if (config.metricsPort !== null) {
    // Before the API port opens: a metrics port that cannot be had stops start-up with one line.
    metrics = await startMetricsServer({ port: config.metricsPort, host: config.host }).catch((err: Error) => {
      throw new ConfigError(`METRICS_PORT: ${err.message}`);
    });
    app.log.info(`metrics on ${metrics.url}`);
  }
  await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
    // Taken since the check: the same one line, with the database closed first.
    await app.close();
    await metrics?.close();
    await handle.close();
    throw portError(err, config.host, config.port);
  });
  if (!worker) app.log.info({ database }, `serving on ${config.baseUrl}; the operator console is at ${config.baseUrl}/console`);
}

main().catch((err) => {
  // A setting that cannot work (a bad variable, ADMIN_EMAIL naming someone else's account), a PGLITE_DIR
  // another process holds: one line each.
  console.error(err instanceof ConfigError || err instanceof FolderInUseError ? err.message : err);
  process.exit(1);
});
