// The operator console (docs/operators.md#operator-console): the Vite build in console/dist, served at /console
// on the service's own origin so the better-auth session cookie and Helmet's CSP ('self') apply as is.
import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply } from "fastify";
import { projectRoot } from "../../db/project-root.js";
import { AppError } from "../errors/errors.js";
import { sendError } from "../errors/rest.js";

export const defaultConsoleDir = join(projectRoot, "console", "dist");

const NOT_BUILT = "The operator console is not built: run `npm run build:console` (npm install does it) and restart the service.";

export async function registerConsole(app: FastifyInstance, dir = defaultConsoleDir): Promise<void> {
  if (!existsSync(join(dir, "index.html"))) {
    app.log.warn(NOT_BUILT);
    const notBuilt = (_req: unknown, reply: FastifyReply) => reply.status(503).type("text/plain; charset=utf-8").send(NOT_BUILT);
    app.get("/console", notBuilt);
    app.get("/console/*", notBuilt);
    return;
  }
  const assets = join(dir, "assets");
  // Files are listed once at start (wildcard: false); hashed assets never change, the page always revalidates.
  await app.register(fastifyStatic, {
    root: dir,
    prefix: "/console/",
    wildcard: false,
    index: false,
    redirect: false,
    setHeaders: (reply, path) => {
      reply.header("cache-control", path.startsWith(assets) ? "public, max-age=31536000, immutable" : "no-cache");
    },
  });
  // The page for /console and every client-side path under it (/console/cohorts/<id>); a missing asset stays 404.
  const page = (request: { url: string }, reply: FastifyReply) => {
    if (request.url.startsWith("/console/assets/")) {
      return sendError(reply, new AppError("NOT_FOUND", `Route GET ${request.url.split("?")[0]} not found`));
    }
    return reply.header("cache-control", "no-cache").sendFile("index.html");
  };
  app.get("/console", page);
  app.get("/console/*", page);
}
