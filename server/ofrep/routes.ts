// The restriction served over the OpenFeature Remote Evaluation Protocol (OFREP, open-feature/protocol
// service/openapi.yaml and ADR 0008), for other services holding a key with `flags:read`
// (docs/platform.md#reading-the-restriction-from-other-services). OFREP's own bodies, not the service's envelope:
// an OpenFeature SDK's OFREP provider reads them as they are.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../../db/client.js";
import { ApiKeyRefusedError, type ApiKeyVerifier, keyStillValid, requireScope, type VerifiedKey } from "../auth/api-keys.js";
import { toAppError } from "../errors/error-mapper.js";
import { AppError, TooManyRequestsError } from "../errors/errors.js";
import { heartbeat, onClientLeave, startEventStream } from "../http/event-stream.js";
import { andThen, type NowOrLater } from "../http/now-or-later.js";
import type { RateLimiter } from "../http/rate-limit.js";
import { onSessionExpiry } from "../live/session-expiry.js";
import type { FlagMemory } from "../memory/flags.js";
import { type OfrepRefusalReason, ofrepRefusals, ofrepStreamsOpen, streamOpened } from "../observability/metrics.js";
import { storedFlag } from "../restriction/pros.js";
import type { FlagChange, FlagChangeHub } from "./changes.js";
import {
  type ContextProblem,
  type Evaluation,
  evaluate,
  evaluationJson,
  FLAG_KEY,
  flagsEtag,
  matchesEtag,
  targetingKeyOf,
} from "./evaluation.js";
import { readStreamToken, STREAM_TOKEN_TTL_MS, streamToken } from "./stream-token.js";

export const OFREP_PREFIX = "/ofrep/v1";
/** What Fastify names a JSON answer it serializes itself: a text made beforehand is sent with the same type. */
const JSON_TYPE = "application/json; charset=utf-8";

export type OfrepDeps = {
  db: Db;
  verifyKey: ApiKeyVerifier;
  /** Evaluations and stream connections per key (OFREP_REQUESTS_PER_MINUTE). */
  limiter: RateLimiter;
  hub: FlagChangeHub;
  /** The pros' statuses in memory (server/memory/flags.ts): evaluations read the database when absent or unsure. */
  flags?: FlagMemory;
  /** Signs the event streams' URLs (the service's BETTER_AUTH_SECRET). */
  secret: string;
  /** Where clients reach the service (BETTER_AUTH_URL): the start of every stream URL, whatever Host a request names. */
  publicBaseUrl: string;
};

/** An event stream URL that is no longer good (expired, or of a revoked key): 401. */
class StreamUrlRefusedError extends AppError {
  constructor() {
    super("UNAUTHORIZED", "This event stream URL is not valid (expired, or its key was revoked): evaluate again for a new one");
  }
}

/** Why a request was refused, when it was refused before any evaluation (ofrep_refusals_total). */
function refusalReason(e: AppError): OfrepRefusalReason | null {
  if (e instanceof ApiKeyRefusedError) return e.reason;
  if (e instanceof TooManyRequestsError) return "rate_limited";
  if (e instanceof StreamUrlRefusedError) return "invalid_stream_url";
  return null;
}

/**
 * OFREP's answer to an error that is not about the flag: its status, and `errorDetails` for a person (OFREP's
 * general error body). OFREP gives 401 and 403 no body of their own; the OpenFeature providers read the status
 * only, so the reason is also counted for the operator.
 */
function sendOfrepError(reply: FastifyReply, err: unknown): FastifyReply {
  const e = toAppError(err);
  if (e.status >= 500) reply.log.error({ err }, "OFREP request failed");
  if (e instanceof TooManyRequestsError) reply.header("retry-after", String(e.retryAfterSeconds));
  const reason = refusalReason(e);
  if (reason) ofrepRefusals.inc({ reason });
  return reply.status(e.status).send({ errorDetails: e.status >= 500 ? "An internal error occurred" : e.message });
}

/** A request's key, checked for `flags:read` and counted against its limit; throws 401, 403 or 429. */
async function authorize(request: FastifyRequest, deps: OfrepDeps): Promise<VerifiedKey> {
  const key = await deps.verifyKey(request.headers["x-api-key"]);
  requireScope(key, "flags:read");
  await countRequest(deps, key.id);
  return key;
}

/** Counts an evaluation or a stream connection against its key's limit; throws 429 past it. */
async function countRequest(deps: OfrepDeps, keyId: string): Promise<void> {
  const verdict = await deps.limiter(keyId);
  if (verdict.limited) throw new TooManyRequestsError(verdict.retryAfterSeconds, "Too many OFREP requests for this API key");
}

/** The pro's flag: at once from memory, else as a promise (the callers `await` it either way). */
function evaluationFor(deps: OfrepDeps, proId: string): NowOrLater<Evaluation> {
  return andThen(storedFlag(deps.db, deps.flags, proId), evaluate);
}

const refetchEvent = (change: FlagChange) =>
  `${change.eventId === undefined ? "" : `id: ${change.eventId}\n`}event: message\ndata: ${JSON.stringify({ type: "refetchEvaluation", etag: change.etag })}\n\n`;

export async function registerOfrep(app: FastifyInstance, deps: OfrepDeps): Promise<void> {
  app.addHook("preClose", async () => deps.hub.closeAll());

  await app.register(async (ofrep) => {
    // A body that is not JSON, too deep or too large is OFREP's PARSE_ERROR, not the service's envelope.
    ofrep.setErrorHandler((err: FastifyError, _request, reply) => {
      if (err.statusCode === 400 || err.code === "FST_ERR_CTP_INVALID_JSON_BODY" || err instanceof SyntaxError) {
        return reply.status(400).send({ errorCode: "PARSE_ERROR", errorDetails: "The body is not valid JSON" });
      }
      if (err.statusCode === 413) return reply.status(413).send({ errorDetails: "Request body is too large" });
      return sendOfrepError(reply, err);
    });

    ofrep.post<{ Params: { key: string } }>(`${OFREP_PREFIX}/evaluate/flags/:key`, async (request, reply) => {
      try {
        await authorize(request, deps);
      } catch (err) {
        return sendOfrepError(reply, err);
      }
      const flagKey = request.params.key;
      if (flagKey !== FLAG_KEY) {
        return reply.status(404).send({ key: flagKey, errorCode: "FLAG_NOT_FOUND", errorDetails: `Flag '${flagKey}' was not found` });
      }
      const target = targetingKeyOf(request.body);
      if (typeof target !== "string") return reply.status(400).send({ key: flagKey, ...target });
      return reply.type(JSON_TYPE).send(evaluationJson(await evaluationFor(deps, target)));
    });

    ofrep.post<{ Headers: { "if-none-match"?: string } }>(`${OFREP_PREFIX}/evaluate/flags`, async (request, reply) => {
      let key: VerifiedKey;
      try {
        key = await authorize(request, deps);
      } catch (err) {
        return sendOfrepError(reply, err);
      }
      const target = targetingKeyOf(request.body);
      if (typeof target !== "string") return reply.status(400).send(bulkProblem(target));
      const flags = [await evaluationFor(deps, target)];
      const etag = flagsEtag(flags);
      reply.header("etag", etag).header("cache-control", "no-cache");
      if (matchesEtag(request.headers["if-none-match"], etag)) return reply.status(304).send();
      const token = streamToken(deps.secret, { keyId: key.id, targetingKey: target, expiresAt: Date.now() + STREAM_TOKEN_TTL_MS });
      const url = `${deps.publicBaseUrl.replace(/\/+$/, "")}${OFREP_PREFIX}/events?token=${encodeURIComponent(token)}`;
      return { flags, eventStreams: [{ type: "sse", url }] };
    });

    ofrep.get<{ Querystring: { token?: string } }>(`${OFREP_PREFIX}/events`, async (request, reply) => {
      const grant = readStreamToken(deps.secret, request.query.token);
      let key: { expiresAt: Date | null } | null;
      try {
        key = grant && (await keyStillValid(deps.db, grant.keyId));
        if (!grant || !key) throw new StreamUrlRefusedError();
        await countRequest(deps, grant.keyId);
      } catch (err) {
        return sendOfrepError(reply, err);
      }
      // A client that left during the checks above gets no stream: nothing would ever free it.
      if (request.raw.destroyed) return reply.hijack();
      try {
        openStream(request, reply, deps.hub, { ...grant, keyExpiresAt: key.expiresAt });
      } catch (err) {
        return sendOfrepError(reply, err);
      }
    });
  });
}

function bulkProblem(problem: ContextProblem): ContextProblem {
  // OFREP's bulk answer has no flag to name: a missing targeting key is an invalid context there.
  return problem.errorCode === "TARGETING_KEY_MISSING" ? { ...problem, errorCode: "INVALID_CONTEXT" } : problem;
}

/**
 * Holds the connection as an SSE stream of the pro's flag changes until the client, the key (revoked, or at
 * its expiry) or the instance ends it. Synchronous from the hub's check to the close listener, so a client
 * cannot leave in between; throws the hub's TooManyRequestsError before anything is sent.
 */
function openStream(
  request: FastifyRequest,
  reply: FastifyReply,
  hub: FlagChangeHub,
  grant: { keyId: string; targetingKey: string; keyExpiresAt: Date | null },
) {
  let ended = false;
  let stopWatching = () => {};
  const raw = reply.raw;
  const end = () => {
    if (ended) return;
    ended = true;
    stopWatching();
    stopHeartbeat();
    cancelExpiry();
    counted();
    remove();
    raw.end();
  };
  const remove = hub.add({ proId: grant.targetingKey, keyId: grant.keyId, send: (change) => raw.write(refetchEvent(change)), close: end });
  startEventStream(request, reply);
  raw.write("retry: 2000\n: connected\n\n");
  const counted = streamOpened(ofrepStreamsOpen);
  const stopHeartbeat = heartbeat(raw);
  const cancelExpiry = grant.keyExpiresAt ? onSessionExpiry(grant.keyExpiresAt, end) : () => {};
  stopWatching = onClientLeave(request, end);
}
