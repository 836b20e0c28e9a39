// The tRPC door at /trpc. tRPC's own Fastify handler turns every call into a web Request and its answer
// into a web Response streamed back through Fastify: about 0.25 ms of CPU per call before the procedure
// runs, more than the bench's floor spends on a whole request (BENCHMARKS.md, issue J). A single query
// (GET) or mutation (POST) is therefore answered here, with tRPC's own pieces: the procedure called as the
// REST door calls it (procedure-call.ts), the error shape from the router's formatter, the status tRPC
// gives that shape, the transformer. Anything else (batches, streaming, subscriptions, HEAD, a wrong
// method, an unknown path, input that does not parse as JSON or superjson) goes to tRPC's handler unchanged.
// test/integration/trpc-door.test.ts compares both handlers' answers call by call.
import {
  type AnyTRPCProcedure,
  type AnyTRPCRouter,
  getErrorShape,
  getTRPCErrorFromUnknown,
  type TRPCError,
  transformTRPCResponse,
} from "@trpc/server";
import { type FastifyTRPCPluginOptions, fastifyRequestHandler } from "@trpc/server/adapters/fastify";
import { getHTTPStatusCode, type TRPCRequestInfo } from "@trpc/server/http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Context } from "../context.js";
import { toAppError } from "../errors/error-mapper.js";
import { errorHeaders } from "../errors/rest.js";
import { jsonNestsDeeperThan, tooDeeplyNested } from "../http/json-depth.js";
import { mediaType } from "../http/trusted-writes.js";
import type { ServerRouter } from "../routers/index.js";
import { successText } from "./answer-text.js";
import { callProcedure, procedureAt } from "./procedure-call.js";

type DoorOptions = Omit<FastifyTRPCPluginOptions<ServerRouter>["trpcOptions"], "responseMeta">;

/** Headers an answer with these errors carries: a rate limit's Retry-After, as on REST. */
export const trpcErrorHeaders = (errors: readonly TRPCError[]) =>
  Object.assign({}, ...errors.map((e) => errorHeaders(toAppError(e)))) as Record<string, string>;

type SingleCall = { path: string; type: "query" | "mutation"; input: unknown; procedure: AnyTRPCProcedure };

/** What tRPC's handler sends with every answer. */
const VARY = "trpc-accept, accept";

/** What parseJson answers for a text that is not JSON (no wrapper object made for every call's input). */
const NOT_JSON = Symbol("not JSON");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** The call when this door can answer it alone; null sends the request to tRPC's handler. */
export function singleCall(
  router: AnyTRPCRouter,
  request: Pick<FastifyRequest, "method" | "headers" | "query" | "body">,
  path: string,
): SingleCall | null {
  const query = request.query as Record<string, unknown>;
  if (path.includes(",") || "batch" in query || request.headers["trpc-accept"] !== undefined) return null;
  /** The call with its input from this JSON text (the transformer's form); null when it is not JSON. */
  const withInput = (procedure: AnyTRPCProcedure, type: SingleCall["type"], text: unknown): SingleCall | null => {
    if (typeof text !== "string") return null;
    const parsed = parseJson(text);
    if (parsed === NOT_JSON) return null;
    // A superjson envelope it cannot read (a meta naming a type its value cannot have, a __proto__ path) is
    // the caller's mistake: tRPC's handler answers it 400 BAD_REQUEST, as it does inside a batch.
    try {
      return { path, type, input: router._def._config.transformer.input.deserialize(parsed), procedure };
    } catch {
      return null;
    }
  };
  if (request.method === "GET") {
    const procedure = procedureAt(router, path, "query");
    if (!procedure) return null;
    return query.input === undefined ? { path, type: "query", input: undefined, procedure } : withInput(procedure, "query", query.input);
  }
  // Without a JSON content type tRPC looks for other body formats (or refuses it): its handler answers.
  const procedure = request.method === "POST" ? procedureAt(router, path, "mutation") : undefined;
  if (!procedure || mediaType(request.headers["content-type"]) !== "application/json") return null;
  const { body } = request;
  return body === undefined || body === ""
    ? { path, type: "mutation", input: undefined, procedure }
    : withInput(procedure, "mutation", body);
}

/**
 * What createContext is told of a single call, as tRPC's handler tells it. A class: its lazy parts are
 * prototype getters, which kept the door ~12 µs a call cheaper than getters on an object literal.
 */
class CallInfo implements TRPCRequestInfo {
  readonly accept = null;
  readonly isBatchCall = false;
  readonly connectionParams = null;
  readonly type: SingleCall["type"];
  readonly calls: TRPCRequestInfo["calls"];
  #abort: AbortController | undefined;

  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    call: SingleCall,
    getRawInput: () => Promise<unknown>,
  ) {
    this.type = call.type;
    this.calls = [{ path: call.path, getRawInput, result: () => call.input, procedure: null, batchIndex: 0 }];
  }

  /**
   * Aborts when the client goes away before its answer, as tRPC's handler does. Made only if someone reads it:
   * nothing of ours does, and an AbortController with its listener per call cost ~7 % of unread-count's rate.
   */
  get signal(): AbortSignal {
    if (!this.#abort) {
      const controller = new AbortController();
      const raw = this.reply.raw;
      this.#abort = controller;
      if (raw.destroyed && !raw.writableFinished) controller.abort();
      raw.once("close", () => {
        if (!raw.writableFinished) controller.abort();
      });
    }
    return this.#abort.signal;
  }

  /** Built only if someone reads it: most calls never do. */
  get url(): URL {
    return new URL(this.request.url, `http://${this.request.headers.host ?? "localhost"}`);
  }
}

/** Fastify's reply serializer for a text already written: it leaves the content type as set (see send). */
const asWritten = (text: string) => text;

async function answer(options: DoorOptions, request: FastifyRequest, reply: FastifyReply, call: SingleCall) {
  const { router } = options;
  const config = router._def._config;
  const getRawInput = async () => call.input;
  const info = new CallInfo(request, reply, call, getRawInput);
  let ctx: Context | undefined;
  let text: string;
  try {
    // Awaited only while the caller is being read: memory knows most callers at once (request-context.ts).
    const made = options.createContext?.({ req: request, res: reply, info });
    ctx = made instanceof Promise ? await made : made;
    const data = await callProcedure(call.procedure, call.path, ctx, getRawInput);
    // What transformTRPCResponse makes of `{ result: { data } }`, without its copies of both objects.
    text = successText(call.path, data) ?? JSON.stringify({ result: { data: config.transformer.output.serialize(data) } });
    reply.status(200);
  } catch (cause) {
    const error = getTRPCErrorFromUnknown(cause);
    options.onError?.({ error, path: call.path, input: call.input, ctx, type: call.type, req: request });
    const json = { error: getErrorShape({ config, ctx, error, input: call.input, path: call.path, type: call.type }) };
    text = JSON.stringify(transformTRPCResponse(config, json));
    reply.status(getHTTPStatusCode(json, [error])).headers(trpcErrorHeaders([error]));
  }
  return (
    reply
      .header("vary", VARY)
      .header("content-type", "application/json")
      // Sent as text through a serializer that keeps it as it is: Fastify adds "; charset=utf-8" to a
      // JSON text it sends itself, which tRPC's answers do not carry (a Buffer, as before, cost a copy and
      // a second chunk in the socket write).
      .serializer(asWritten)
      .send(text)
  );
}

/**
 * Mounts the door at `prefix/:path`, in its own scope: JSON bodies reach tRPC as text, as its plugin does.
 * No other body does: a multipart form of any size was read whole into memory (issue K), so Fastify answers
 * 415 for it (the app's request guards refuse it first). JSON that nests deeper than any input of ours is
 * refused before tRPC or superjson walk it.
 */
export function registerTrpcDoor(app: FastifyInstance, prefix: string, options: DoorOptions) {
  return app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) =>
      jsonNestsDeeperThan(body as string) ? done(tooDeeplyNested(), undefined) : done(null, body),
    );
    scope.all(`${prefix}/:path`, async (request, reply) => {
      const path = (request.params as { path: string }).path;
      const input = (request.query as { input?: unknown }).input;
      if (typeof input === "string" && jsonNestsDeeperThan(input)) throw tooDeeplyNested();
      const call = singleCall(options.router, request, path);
      if (call) return answer(options, request, reply, call);
      await fastifyRequestHandler({
        ...options,
        responseMeta: ({ errors }) => ({ headers: trpcErrorHeaders(errors) }),
        req: request,
        res: reply,
        path,
      });
    });
  });
}
