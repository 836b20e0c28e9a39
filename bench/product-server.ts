// The product as the benchmark runs it: a child process of bench/run.ts that opens the service exactly as
// server/main.ts does (openService: migrations, better-auth, push, buildApp) on the bench database with
// the default pool of 10 connections and logging off, listens on loopback and reports its port.
import { loadConfig } from "../server/config.js";
import { openService } from "../server/service.js";
import { serveForParent } from "./child.js";

const { app, handle } = await openService(loadConfig(process.env), { logger: false });
const address = await app.listen({ host: "127.0.0.1", port: 0 });
serveForParent("product", address, async () => {
  await app.close();
  await handle.close();
});
