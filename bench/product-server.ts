// The product as the benchmark runs it: a child process of bench/run.ts that opens the service exactly as
// server/main.ts does (openService: migrations, better-auth, push, buildApp) on the bench database with
// the default pool of 10 connections and logging off, listens on loopback and reports its port.
import { loadConfig } from "../server/config.js";
import { openService } from "../server/service.js";

const { app, handle } = await openService(loadConfig(process.env), { logger: false });
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
