// The product as the benchmark runs it: a child process of bench/run.ts that opens the service exactly as
// server/main.ts does (openService: migrations, better-auth, push, buildApp) on the bench database with
// the default pool of 10 connections and logging off, listens on loopback and reports its port.
// BENCH_PRODUCT_LOG=info logs as `npm start` does (pino's JSON lines, to /dev/null): the cost of the
// request log lines an operator has in production, which the bench's usual runs leave out.
import { openSync } from "node:fs";
import { pino } from "pino";
import { loadConfig } from "../server/config.js";
import { openService } from "../server/service.js";
import { serveForParent } from "./child.js";

const level = process.env.BENCH_PRODUCT_LOG;
const logger = level
  ? {
      level,
      stream: pino.destination({ fd: openSync("/dev/null", "w"), sync: true }),
      redact: ["req.headers.authorization", "req.headers.cookie", 'res.headers["set-auth-token"]'],
    }
  : false;
const { app, handle } = await openService(loadConfig(process.env), { logger });
const address = await app.listen({ host: "127.0.0.1", port: 0 });
serveForParent("product", address, async () => {
  await app.close();
  await handle.close();
});
