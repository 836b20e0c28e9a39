// The ceiling (issue AE): Fastify alone, answering the from-memory scenarios' routes with answers of the same
// shape and constant values. No database, no key or session check, no log, no hooks: what the framework
// itself costs on this machine, for the reads that never touch the database. The product's from-memory
// rows are shown as a share of it beside their ratio to the floor.
//
// Run alone: node --import tsx bench/bare.ts (prints the port it got).
import Fastify from "fastify";
import { evaluate, flagsEtag } from "../server/ofrep/evaluation.js";
import { serveForParent } from "./child.js";

/** A pro without a stored status: the same evaluation the product gives most of the bench's pros. */
const EVALUATION = evaluate(undefined);
const ETAG = flagsEtag([EVALUATION]);
const STREAM_URL = "http://127.0.0.1/ofrep/v1/events?token=bare";

export function buildBare() {
  const app = Fastify({ logger: false });

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

const app = buildBare();
const address = await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
serveForParent("bare", address, () => app.close());
