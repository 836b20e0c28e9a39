// Entry point: read config, open the database, build the app, listen; drain on SIGTERM/SIGINT.
import { ConfigError, loadConfig } from "./config.js";
import { openService } from "./service.js";

async function main() {
  const config = loadConfig();
  const { app, handle, bootstrap } = await openService(config);
  for (const warning of config.warnings) app.log.warn(warning);
  if (bootstrap?.created) app.log.info({ email: bootstrap.email }, "created the admin account from ADMIN_EMAIL");
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down: finishing in-flight requests");
    try {
      // Stops accepting, waits for in-flight requests, then the database goes.
      await app.close();
      await handle.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { database: handle.driver === "pglite" ? `PGlite (${config.pgliteDir})` : "PostgreSQL" },
    `serving on ${config.baseUrl}`,
  );
}

main().catch((err) => {
  // A setting that cannot work (a bad variable, ADMIN_EMAIL naming someone else's account): one line each.
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
