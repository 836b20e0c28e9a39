// Registers the REST route table: each route builds its procedure's input from the request, calls the
// procedure through a tRPC caller, and wraps the answer in the contract's envelope.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { appRouter, createCaller } from "../routers/index.js";
import { validationError } from "../errors.js";
import { sendError } from "./errors.js";
import type { RestRoute } from "./routes.js";
import type { Context } from "../context.js";

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The JSON body as an object; {} when there is none. */
function bodyObject(request: FastifyRequest): Record<string, unknown> {
  const body = request.body ?? {};
  if (!isPlainObject(body)) {
    throw validationError("Request body must be a JSON object", [
      { field: "(body)", message: "expected a JSON object" },
    ]);
  }
  return body;
}

/** The procedure's input as the route table says; path parameters win over body or query fields. */
function procedureInput(route: RestRoute, request: FastifyRequest): unknown {
  if (!route.input) return undefined;
  const params = request.params as Record<string, string>;
  if (route.input === "path") return { ...params };
  const fields = route.input === "body" ? bodyObject(request) : (request.query as Record<string, unknown>);
  return { ...fields, ...params };
}

type Callable = (input: unknown) => Promise<unknown>;
type ProcedureDef = { _def: { type: "query" | "mutation" | "subscription"; inputs: unknown[] } };

/** The procedure a route names, from tRPC's flat map of dotted paths; throws when there is none. */
export function procedureAt(path: string): ProcedureDef {
  const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef | undefined>;
  const procedure = procedures[path];
  if (!procedure) throw new Error(`REST route names unknown procedure ${path}`);
  return procedure;
}

function resolveProcedure(caller: unknown, path: string): Callable {
  const fn = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller);
  return fn as Callable;
}

export function registerRestRoutes(
  app: FastifyInstance,
  routes: RestRoute[],
  createContext: (request: FastifyRequest) => Promise<Context>,
): void {
  for (const route of routes) {
    procedureAt(route.procedure);
    app.route({
      method: route.method,
      url: route.path,
      async handler(request, reply) {
        try {
          const input = procedureInput(route, request);
          const caller = createCaller(await createContext(request));
          const data = await resolveProcedure(caller, route.procedure)(input);
          return reply.status(route.status ?? 200).send({ success: true, data });
        } catch (err) {
          return sendError(reply, err);
        }
      },
    });
  }
}
