// Registers the REST route table: each route builds its procedure's input from the request, calls the
// procedure through a tRPC caller, and wraps the answer in the contract's envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { appRouter, createCaller } from "../routers/index.js";
import { toRestError, validationError } from "../errors.js";
import type { RestRoute } from "./routes.js";
import type { Context } from "../context.js";

export type RequestParts = {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  /** The JSON body as an object; {} when there is none. */
  body: Record<string, unknown>;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function requestParts(request: FastifyRequest): RequestParts {
  const body = request.body ?? {};
  if (!isPlainObject(body)) {
    throw validationError("Request body must be a JSON object", [
      { field: "(body)", message: "expected a JSON object" },
    ]);
  }
  return {
    params: request.params as Record<string, string>,
    query: request.query as RequestParts["query"],
    body,
  };
}

type Callable = (input: unknown) => Promise<unknown>;

function resolveProcedure(caller: unknown, path: string): Callable {
  const fn = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller);
  return fn as Callable;
}

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const { status, body } = toRestError(err);
  if (status >= 500) reply.log.error({ err }, "request failed");
  return reply.status(status).send(body);
}

export function registerRestRoutes(
  app: FastifyInstance,
  routes: RestRoute[],
  createContext: (request: FastifyRequest) => Promise<Context>,
): void {
  for (const route of routes) {
    if (!(route.procedure in appRouter._def.procedures)) {
      throw new Error(`REST route ${route.method} ${route.path} names unknown procedure ${route.procedure}`);
    }
    app.route({
      method: route.method,
      url: route.path,
      async handler(request, reply) {
        try {
          const input = route.input ? route.input(requestParts(request)) : undefined;
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
