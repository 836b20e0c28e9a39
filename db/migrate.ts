// `npm run db:migrate`: applies the committed migrations to the configured database (the server also
// does this at start-up).
import { loadConfig } from "../server/config.js";
import { createDb } from "./client.js";

const config = loadConfig();
const handle = await createDb({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir });
try {
  await handle.migrate();
  console.log(`migrations applied (${handle.driver === "pglite" ? `PGlite in ${config.pgliteDir}` : "PostgreSQL"})`);
} finally {
  await handle.close();
}
