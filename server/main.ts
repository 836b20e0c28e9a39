// Entry point: read config, open the database, build the app, listen; drain on SIGTERM/SIGINT.
import { ConfigError, loadConfig } from "./config.js";
import { openService } from "./service.js";

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Invalid configuration:\n${err.message}`);
      process.exit(1);
    }
    throw err;
  }

  const { app, handle } = await openService(config);
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
  console.error(err);
  process.exit(1);
});
