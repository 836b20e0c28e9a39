// `npm run db:migrate`: applies the committed migrations to the configured database (the server also
// does this at start-up).
import { createDb } from "./client.js";
import { databaseSettings, describeDatabase } from "./config.js";
import { exitIfFolderInUse } from "./folder-lock.js";

const settings = databaseSettings();
const handle = await createDb(settings).catch(exitIfFolderInUse);
try {
  await handle.migrate();
  console.log(`migrations applied (${describeDatabase(settings)})`);
} finally {
  await handle.close();
}
