// Registers the REST route table: each route builds its procedure's input from the request, calls the
// procedure by its path with that raw input (as tRPC's own HTTP adapter does, so the procedure's middleware
// and input parser run exactly as over /trpc), and wraps the answer in the envelope (docs/api.md#envelope),
// serialized from the procedure's output schema.
import type { AnyTRPCProcedure } from "@trpc/server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../../db/client.js";
import type { Context } from "../context.js";
import { validationError, zodDetails } from "../errors/errors.js";
import { logFailedAnswer, sendError, toRestError } from "../errors/rest.js";
import type { NowOrLater } from "../http/now-or-later.js";
import { appRouter, inputSchemaOf } from "../routers/index.js";
import { callProcedure, procedureAt } from "../trpc/procedure-call.js";
import type { KeyedAnswer, RunKeyed } from "./idempotency.js";
import { type QueryInput, readQuery } from "./query.js";
import type { RestRoute } from "./routes.js";
import { successSerializerSchemas } from "./serializers.js";

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The JSON body as an object; {} when there is none. */
function bodyObject(request: FastifyRequest): Record<string, unknown> {
  const body = request.body ?? {};
  if (!isPlainObject(body)) {
    throw validationError("Request body must be a JSON object", [{ field: "(body)", message: "expected a JSON object" }]);
  }
  return body;
}

/**
 * The procedure's input as the route table says, and the later values of repeated query keys; path
 * parameters win over body or query fields.
 */
function procedureInput(route: RestRoute, request: FastifyRequest): { input: unknown; repeats: QueryInput["repeats"] } {
  const params = request.params as Record<string, string>;
  switch (route.input) {
    case undefined:
      return { input: undefined, repeats: [] };
    case "path":
      return { input: { ...params }, repeats: [] };
    case "body":
      return { input: { ...bodyObject(request), ...params }, repeats: [] };
    case "query": {
      const { input, repeats } = readQuery(route.query, request.query as Record<string, unknown>);
      return { input: { ...input, ...params }, repeats };
    }
  }
}

/**
 * With repeated query keys, the input is checked once with each later value standing in for its key's
 * first, and every field any of them gets wrong is named at once (the procedure then parses the input).
 */
function refuseBadRepeats(route: RestRoute, input: unknown, repeats: QueryInput["repeats"]): void {
  const schema = inputSchemaOf(route.procedure);
  if (!schema || !repeats.length) return;
  const candidates = [input, ...repeats.map((repeat) => ({ ...(input as object), ...repeat }))];
  const issues = candidates.flatMap((candidate) => schema.safeParse(candidate).error?.issues ?? []);
  const seen = new Set<string>();
  const distinct = issues.filter((issue) => {
    const key = `${issue.path.join(".")}|${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  // As the procedure's own parse would answer (error-mapper.ts), with every candidate's issues.
  if (distinct.length) throw validationError("Invalid input", zodDetails({ issues: distinct }));
}

/** The procedure a route calls, found once as the route is declared: a GET calls a query, the others a mutation. */
function routeProcedure(route: RestRoute): AnyTRPCProcedure {
  const type = route.method === "GET" ? "query" : "mutation";
  const procedure = procedureAt(appRouter, route.procedure, type);
  if (!procedure) throw new Error(`REST route ${route.method} ${route.path}: no ${type} ${route.procedure}`);
  return procedure;
}

/** The route's procedure, called with the request's input and `ctx`; its answer's data. */
function callRoute(route: RestRoute, procedure: AnyTRPCProcedure, request: FastifyRequest, ctx: Context): Promise<unknown> {
  const { input, repeats } = procedureInput(route, request);
  // Read where the procedure parses its input, after its access checks: a later value of a repeated
  // query key is refused as the first one would be, though only the first one counts.
  return callProcedure(procedure, route.procedure, ctx, async () => {
    refuseBadRepeats(route, input, repeats);
    return input;
  });
}

/** A success's status: 202 when the route files a change request instead of acting and this answer did. */
const successStatus = (route: RestRoute, data: unknown): number =>
  route.acceptedWhenRequested && isPlainObject(data) && data.changeRequest !== undefined ? 202 : (route.status ?? 200);

/** The whole answer as text, success or error, for a request whose answer is stored with its change (runKeyed). */
async function keyedAnswer(
  route: RestRoute,
  procedure: AnyTRPCProcedure,
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: Context,
): Promise<KeyedAnswer> {
  try {
    const data = await callRoute(route, procedure, request, ctx);
    const status = successStatus(route, data);
    return { status, body: String(reply.status(status).serialize({ success: true, data })), headers: {} };
  } catch (err) {
    const answer = toRestError(err);
    logFailedAnswer(reply.log, answer.status, { err });
    return { status: answer.status, body: JSON.stringify(answer.body), headers: answer.headers };
  }
}

export function registerRestRoutes(
  app: FastifyInstance,
  routes: readonly RestRoute[],
  createContext: (request: FastifyRequest) => NowOrLater<Context>,
  runKeyed: RunKeyed,
): void {
  const serializers = successSerializerSchemas(routes);
  for (const route of routes) {
    const status = route.status ?? 200;
    const serializer = serializers.get(route.procedure);
    const procedure = routeProcedure(route);
    app.route({
      method: route.method,
      url: route.path,
      // The success answer is serialized from its schema (server/rest/serializers.ts); errors as they are.
      schema: { response: { [status]: serializer, ...(route.acceptedWhenRequested ? { 202: serializer } : {}) } },
      async handler(request, reply) {
        try {
          // Awaited only while the caller is being read: memory knows most callers at once (request-context.ts).
          const made = createContext(request);
          const ctx = made instanceof Promise ? await made : made;
          const keyed = runKeyed(request, (db: Db) => keyedAnswer(route, procedure, request, reply, { ...ctx, db }));
          if (keyed) {
            const answer = await keyed;
            return reply.status(answer.status).headers(answer.headers).type("application/json; charset=utf-8").send(answer.body);
          }
          const data = await callRoute(route, procedure, request, ctx);
          return reply.status(successStatus(route, data)).send({ success: true, data });
        } catch (err) {
          return sendError(reply, err);
        }
      },
    });
  }
}
