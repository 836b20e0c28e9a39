// The product as the benchmark runs it: a child process of bench/run.ts that opens the service exactly as
// server/main.ts does, from the same compiled files (openService: migrations, better-auth, push, buildApp) on the bench database with
// the default pool of 10 connections and logging off, listens on loopback and reports its port.
// BENCH_PRODUCT_LOG=info logs as `npm start` does (pino's JSON lines, to /dev/null): the cost of the
// request log lines an operator has in production, which the bench's usual runs leave out.
import { openSync } from "node:fs";
import { pino } from "pino";
import { builtServer as built, serveForParent } from "./child.js";

// The service as `npm start` runs it: tsc's output in build/ (`npm run bench` builds it first, its `prebench`),
// not the sources through tsx, whose helper keeping function names (`__name`, around every function made
// per call) took ~2 % of a from-memory read's CPU in the bench's profiles (issue AE).
const { loadConfig } = (await import(built("config.js"))) as typeof import("../server/config.js");
const { openService } = (await import(built("service.js"))) as typeof import("../server/service.js");
const { memoryReads } = (await import(built("observability/metrics.js"))) as typeof import("../server/observability/metrics.js");

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
// As in production, where someone has signed in before the hot reads: one call through better-auth, whose
// AsyncLocalStorages, once run, made every later promise of the process pay hooks (issue AE). The bench's
// sessions are made without the product server, which otherwise never ran them.
const session = await fetch(`${address}/api/auth/get-session`);
if (!session.ok) throw new Error(`better-auth's get-session answered ${session.status}`);
serveForParent(
  "product",
  address,
  async () => {
    await app.close();
    await handle.close();
  },
  // The hot reads so far, of every kind, by where they were answered from: the bench checks that a from-memory
  // scenario measured reads from memory, not the database while memory could not vouch for itself.
  async () => {
    const reads = { memory: 0, database: 0 };
    for (const { labels, value } of (await memoryReads.get()).values) reads[labels.source as keyof typeof reads] += value;
    return { memoryReads: reads };
  },
);
