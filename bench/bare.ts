// The ceiling (issue AE): Fastify alone, answering the from-memory scenarios' routes with answers of the same
// shape and constant values. No database, no key or session check, no log, no hooks: what the framework
// itself costs on this machine, for the reads that never touch the database. The product's from-memory
// rows are shown as a share of it beside their ratio to the floor.
//
// Run alone: node --import tsx bench/bare.ts (prints the port it got).
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyInstance } from "fastify";
import { apiSecurityHeaders } from "../server/http/security-headers.js";
import { evaluate, flagsEtag } from "../server/ofrep/evaluation.js";
import { serveForParent } from "./child.js";

/** A pro without a stored status: the same evaluation the product gives most of the bench's pros. */
const EVALUATION = evaluate(undefined);
const ETAG = flagsEtag([EVALUATION]);
const STREAM_URL = "http://127.0.0.1/ofrep/v1/events?token=bare";

/**
 * bench/slower-bare.ts only: BARE_BURN_US spends that many microseconds of JavaScript on each request, and
 * BARE_HEADERS=1 adds the product's five security headers and a request id, to see what a slower server, or
 * one with more headers, pays in the kernel. Unset (as `npm run bench` runs it), bare is Fastify alone.
 */
function slowedDown(app: FastifyInstance, env: NodeJS.ProcessEnv): void {
  const burnNs = BigInt(Math.round(Number(env.BARE_BURN_US ?? 0) * 1000));
  const headers = env.BARE_HEADERS === "1" ? apiSecurityHeaders() : null;
  if (burnNs > 0n || headers) {
    app.addHook("onRequest", (_request, reply, done) => {
      const end = process.hrtime.bigint() + burnNs;
      while (process.hrtime.bigint() < end);
      if (headers) reply.headers(headers).header("x-request-id", randomUUID());
      done();
    });
  }
}

export function buildBare(env: NodeJS.ProcessEnv = {}) {
  const app = Fastify({ logger: false });
  slowedDown(app, env);

  app.post("/ofrep/v1/evaluate/flags/:key", async () => EVALUATION);
  app.post("/ofrep/v1/evaluate/flags", async (request, reply) => {
    reply.header("etag", ETAG).header("cache-control", "no-cache");
    // Any If-None-Match is taken as current: the 304 scenario's ETags are the product's, per pro.
    if (request.headers["if-none-match"]) return reply.status(304).send();
    return { flags: [EVALUATION], eventStreams: [{ type: "sse", url: STREAM_URL }] };
  });
  app.get("/api/admin/restriction/:proId", async (request) => ({
    success: true,
    data: { proId: (request.params as { proId: string }).proId, restrictionActive: false },
  }));
  app.get("/api/notifications/unread-count", async () => ({ success: true, data: { count: 0 } }));
  return app;
}

const app = buildBare(process.env);
const address = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
serveForParent("bare", address, () => app.close());
