// The product as the benchmark runs it: a child process of bench/run.ts that opens the service exactly as
// server/main.ts does (openService: migrations, better-auth, push, buildApp) on the bench database with
// the default pool of 10 connections and logging off, listens on loopback and reports its port.
//
// BENCH_EXPERIMENT=direct-session is a what-if, never the product as shipped: the same service, but the
// session comes from one SQL join instead of better-auth's getSession (see bench/experiments.ts). It
// measures the effect of the change BENCHMARKS.md recommends for server/auth.ts before anyone makes it.
import { createDb } from "../db/client.js";
import { buildApp } from "../server/app.js";
import { createAuth } from "../server/auth.js";
import { loadConfig } from "../server/config.js";
import { createPushService } from "../server/push/sender.js";
import { authSecret, openService } from "../server/service.js";
import { useDirectSessionLookup } from "./experiments.js";

const config = loadConfig(process.env);
const experiment = process.env.BENCH_EXPERIMENT ?? "";

async function open() {
  if (experiment === "") return openService(config, { logger: false });
  if (experiment !== "direct-session") throw new Error(`unknown BENCH_EXPERIMENT ${experiment}`);
  // openService's steps, with the one substitution.
  const handle = await createDb({ databaseUrl: config.databaseUrl, pgliteDir: config.pgliteDir });
  await handle.migrate();
  const auth = createAuth({
    db: handle.db,
    secret: authSecret(config),
    baseUrl: config.baseUrl,
    trustedOrigins: config.trustedOrigins,
    platformAdminEmails: config.platformAdminEmails,
  });
  useDirectSessionLookup(auth, handle.db);
  const push = createPushService({ vapid: config.vapid, allowHttpEndpoints: config.pushAllowHttpEndpoints });
  const app = await buildApp({ config, db: handle.db, auth, push, logger: false });
  return { app, handle };
}

const { app, handle } = await open();
const address = await app.listen({ host: "127.0.0.1", port: 0 });
const port = Number(new URL(address).port);
if (process.send) process.send({ ready: port });
else console.log(`product listening on ${address}`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await app.close();
  await handle.close();
  process.exit(0);
}
process.on("message", (message) => {
  if (message === "stop") void stop();
});
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
process.on("disconnect", () => void stop());
