// Entry point: read config, open the database, build the app, listen (and serve metrics on METRICS_PORT);
// drain on SIGTERM/SIGINT.
import { pino } from "pino";
import { FolderInUseError } from "../db/folder-lock.js";
import { adminCount, passwordMismatchLine } from "./auth/admin-bootstrap.js";
import { ConfigError, loadConfig } from "./config.js";
import { type MetricsServer, startMetricsServer } from "./observability/metrics.js";
import { checkPortFree, portError } from "./port-check.js";
import { openService } from "./service.js";

async function main() {
  const config = loadConfig();
  await checkPortFree(config.host, config.port);
  const database = config.databaseUrl ? "PostgreSQL" : `PGlite (${config.pgliteDir})`;
  // The app's logger exists only once the database is open; a first start migrates for a while before that.
  pino({ level: config.logLevel }).info({ database }, "starting: opening the database and applying migrations");
  const { app, handle, bootstrap } = await openService(config);
  for (const warning of config.warnings) app.log.warn(warning);
  if (bootstrap?.created) app.log.info({ email: bootstrap.email }, "created the admin account from ADMIN_EMAIL");
  if (bootstrap?.passwordMatches === false) app.log.warn(passwordMismatchLine(bootstrap.email, handle.driver === "pglite"));
  const admins = await adminCount(handle.db);
  if (admins === 0) {
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

  if (config.metricsPort !== null) {
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
  app.log.info({ database }, `serving on ${config.baseUrl}; the operator console is at ${config.baseUrl}/console`);
}

main().catch((err) => {
  // A setting that cannot work (a bad variable, ADMIN_EMAIL naming someone else's account), a PGLITE_DIR
  // another process holds: one line each.
  console.error(err instanceof ConfigError || err instanceof FolderInUseError ? err.message : err);
  process.exit(1);
});
