// Safe retries (docs/api.md#safe-retries): a REST write sent with an Idempotency-Key runs once per caller
// and key. The key is claimed in idempotency_keys before the handler runs (status null = running), the
// answer stored after it, and a repeat answered from the row. In the database, so every instance sees it.
// On PostgreSQL, where a COMMIT's answer can be lost (db/deadline.ts), the procedure runs inside one
// transaction that first locks the claim and last stores the answer (runKeyed): the change and its answer
// commit together or not at all, and the lock tells a retry whether the first request is still running.
// Routes whose procedure waits on the network (a push, a DNS look-up) are keyed as on PGlite instead, so no
// transaction is held open across it (KeyedOutside, issue Y).
import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import type { Db } from "../../db/client.js";
import { commitsCanBeLost } from "../../db/deadline.js";
import { idempotencyKeys } from "../../db/schema/index.js";
import type { Auth } from "../auth/better-auth.js";
import { sessionResolver } from "../auth/session.js";
import { AppError, IdempotencyKeyReusedError, validationError } from "../errors/errors.js";
import { sendError, toRestError } from "../errors/rest.js";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_LIFETIME_MS,
  IDEMPOTENCY_KEY_PROBLEM,
  REPLAYED_HEADER,
  requestFingerprint,
  takesIdempotencyKey,
  wellFormedKey,
} from "../http/idempotency-key.js";
import { inKeyedTransaction } from "../http/keyed-scope.js";
import { addRouteHook, routeMethods } from "../http/route-hooks.js";
import { afterSettling } from "../memory/fence.js";
import type { IdentityMemory } from "../memory/identity.js";

/** The row a request holds while it runs; its expiry (set here, to the millisecond) tells it from a later claim. */
type Claim = { userId: string; key: string; expiresAt: Date };
type StoredKey = typeof idempotencyKeys.$inferSelect;

/** Expired rows deleted by each claim: the table is kept small without a timer. */
const SWEEP_BATCH = 20;

const t = idempotencyKeys;
const ownRow = (c: Claim) => and(eq(t.userId, c.userId), eq(t.key, c.key), eq(t.expiresAt, c.expiresAt), isNull(t.status));

async function sweepExpired(db: Db, now: Date): Promise<void> {
  const expired = db.select({ userId: t.userId, key: t.key }).from(t).where(lt(t.expiresAt, now)).limit(SWEEP_BATCH);
  await db.delete(t).where(inArray(sql`(${t.userId}, ${t.key})`, expired));
}

/**
 * Claims the key: inserts the running row, or takes over an expired one, in one statement. Returns null
 * when this request may run, else the row that holds the key (undefined when it went away meanwhile).
 */
async function claimKey(
  db: Db,
  claim: Claim,
  fingerprint: string,
  now: Date,
  { sweep = true } = {},
): Promise<StoredKey | undefined | null> {
  if (sweep) await sweepExpired(db, now);
  const fresh = { fingerprint, status: null, responseBody: null, createdAt: now, expiresAt: claim.expiresAt };
  const won = await db
    .insert(t)
    .values({ userId: claim.userId, key: claim.key, ...fresh })
    .onConflictDoUpdate({ target: [t.userId, t.key], set: fresh, setWhere: lt(t.expiresAt, now) })
    .returning({ key: t.key });
  if (won.length) return null;
  const [row] = await db
    .select()
    .from(t)
    .where(and(eq(t.userId, claim.userId), eq(t.key, claim.key)));
  return row;
}

/**
 * What a replay answers instead of the first answer, for a route whose first answer must not be stored as
 * it is (an API key's secret): given the first status and body, the status and body to keep.
 */
export type ReplayAnswer = (first: { status: number; body: string }) => { status: number; body: string };

/** What a keyed request answers: its status, its body as sent, its headers. */
export type KeyedAnswer = { status: number; body: string; headers: Record<string, string> };
/** Runs `produce` (the procedure and its answer) for the request, inside the claim's transaction when it holds one. */
export type RunKeyed = (request: FastifyRequest, produce: (db: Db) => Promise<KeyedAnswer>) => Promise<KeyedAnswer> | null;

class FailedAnswer extends Error {
  constructor(readonly answer: KeyedAnswer) {
    super("the request failed: nothing it did is kept");
  }
}

/**
 * After the handler: a 5xx (or an answer that is not text) frees the key for a retry; anything else is kept.
 * `sent`: the request sent pushes, which a retry must not send again, so even its 5xx is kept.
 */
async function settle(db: Db, claim: Claim, status: number, payload: unknown, replay?: ReplayAnswer, sent = false): Promise<void> {
  const body = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : null;
  if ((status >= 500 && !sent) || body === null) return release(db, claim);
  const kept = replay ? replay({ status, body }) : { status, body };
  await db.update(t).set({ status: kept.status, responseBody: kept.body }).where(ownRow(claim));
}

async function release(db: Db, claim: Claim): Promise<void> {
  await db.delete(t).where(ownRow(claim));
}

/** The answer to a request whose key is held by an earlier one: its stored answer, or why not. */
function earlierAnswer(earlier: StoredKey | undefined, fingerprint: string): KeyedAnswer {
  if (earlier && earlier.fingerprint !== fingerprint) return errorAnswer(new IdempotencyKeyReusedError());
  if (!earlier || earlier.status === null) return errorAnswer(new AppError("CONFLICT", STILL_RUNNING));
  return { status: earlier.status, body: earlier.responseBody ?? "", headers: { [REPLAYED_HEADER]: "true" } };
}

const STILL_RUNNING = "A request with this Idempotency-Key is still running; retry after it answers";

function errorAnswer(err: unknown): KeyedAnswer {
  const { status, body, headers } = toRestError(err);
  return { status, body: JSON.stringify(body), headers };
}

const sendAnswer = (reply: FastifyReply, answer: KeyedAnswer) =>
  reply.status(answer.status).headers(answer.headers).type("application/json; charset=utf-8").send(answer.body);

/**
 * A keyed route whose procedure waits on the network, or counts a rate limit: its key is claimed in a
 * statement of its own and its answer stored after, on PostgreSQL too, so no transaction and no pool
 * connection is held while it waits. `sends`: it sends pushes; once it has, its answer is kept even when it
 * is a 5xx, so a retry with the key replays it instead of pushing again.
 */
export type KeyedOutside = { sends?: boolean };

export type Idempotency = {
  /** For the REST door: null for a request that holds no claim in a transaction (PGlite, or KeyedOutside). */
  runKeyed: RunKeyed;
  /** Whether the request holds a key whose route sends pushes (KeyedOutside.sends). */
  tracksSends(request: FastifyRequest): boolean;
  /** The request has started sending: its answer is kept whatever it is. */
  sent(request: FastifyRequest): void;
};

const routeOf = (request: FastifyRequest) => `${request.method} ${request.routeOptions.url}`;

/**
 * `replays`: per route (`"POST /api/admin/api-keys"`, method and route template), what its replay answers.
 * `outside`: per route, the keyed routes kept outside one transaction (KeyedOutside).
 */
export function registerIdempotency(
  app: FastifyInstance,
  deps: {
    db: Db;
    auth: Auth;
    replays?: Readonly<Record<string, ReplayAnswer>>;
    outside?: Readonly<Record<string, KeyedOutside>>;
    identity?: IdentityMemory;
  },
): Idempotency {
  const resolveSession = sessionResolver(deps.auth, deps.db, deps.identity);
  const claims = new WeakMap<FastifyRequest, Claim>();
  const sending = new WeakSet<FastifyRequest>();
  const sent = new WeakSet<FastifyRequest>();
  // PostgreSQL: the claim is made inside the request's transaction (runKeyed); these wait for it there.
  const pending = new WeakMap<FastifyRequest, { claim: Claim; fingerprint: string }>();
  const inTransaction = commitsCanBeLost(deps.db);

  // Only the routes that take a key get these hooks; a request to one still may not send a key.
  const keyed = (route: RouteOptions) => routeMethods(route).some((method) => takesIdempotencyKey(method, route.url));
  // preHandler: the body (part of the fingerprint) is parsed by then, and the rate limits have answered.
  addRouteHook(app, "preHandler", keyed, async (request, reply) => {
    const header = request.headers[IDEMPOTENCY_KEY_HEADER];
    if (header === undefined || !takesIdempotencyKey(request.method, request.url)) return;
    const key = wellFormedKey(header);
    if (!key) {
      return sendError(
        reply,
        validationError("Invalid Idempotency-Key header", [{ field: "Idempotency-Key", message: IDEMPOTENCY_KEY_PROBLEM }]),
      );
    }
    // No caller: the route answers 401 as it would without the header, and nothing is stored.
    const caller = await resolveSession(request);
    if (!caller) return;
    const now = new Date();
    const claim = { userId: caller.user.id, key, expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_LIFETIME_MS) };
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    const outside = deps.outside?.[routeOf(request)];
    if (inTransaction && !outside) {
      pending.set(request, { claim, fingerprint });
      return;
    }
    const earlier = await claimKey(deps.db, claim, fingerprint, now);
    if (earlier !== null) return sendAnswer(reply, earlierAnswer(earlier, fingerprint));
    claims.set(request, claim);
    if (outside?.sends) sending.add(request);
  });

  // Stored before the answer leaves, so a retry that follows it is a replay, never a 409.
  addRouteHook(app, "onSend", keyed, async (request, reply, payload) => {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    const replay = deps.replays?.[routeOf(request)];
    await settle(deps.db, claim, reply.statusCode, payload, replay, sent.has(request)).catch(async (err) => {
      request.log.error({ err }, "could not store the Idempotency-Key answer");
      await release(deps.db, claim).catch(() => {});
    });
    return payload;
  });

  // A request that ended without passing onSend leaves no running row behind.
  addRouteHook(app, "onResponse", keyed, async (request) => {
    const claim = claims.get(request);
    if (!claim) return;
    claims.delete(request);
    await release(deps.db, claim).catch((err) => request.log.error({ err }, "could not free an Idempotency-Key"));
  });

  return {
    runKeyed(request, produce) {
      const keyed = pending.get(request);
      if (!keyed) return null;
      pending.delete(request);
      return runKeyed(deps.db, keyed.claim, keyed.fingerprint, produce, deps.replays?.[routeOf(request)]);
    },
    tracksSends: (request) => sending.has(request),
    sent: (request) => void sent.add(request),
  };
}

/**
 * PostgreSQL: the claim, the procedure and its answer in one transaction. The claim is an advisory lock on
 * the key for the transaction's life (a request that finds it taken answers 409 at once) and the key's row,
 * which commits with the change and its answer or not at all. So a request that failed, or whose COMMIT's
 * answer was lost and did not commit, leaves no row, and its retry runs afresh; one that committed leaves
 * its answer for the retry.
 */
async function runKeyed(
  db: Db,
  claim: Claim,
  fingerprint: string,
  produce: (db: Db) => Promise<KeyedAnswer>,
  replay?: ReplayAnswer,
): Promise<KeyedAnswer> {
  const now = new Date();
  await sweepExpired(db, now);
  try {
    // Memory learns of the procedure's writes once the transaction settles, never before its COMMIT.
    return await afterSettling(() =>
      inKeyedTransaction(() =>
        db.transaction(async (tx) => {
          const [lock] = (await tx.execute(
            sql`select pg_try_advisory_xact_lock(hashtextextended(${`${claim.userId}\n${claim.key}`}, 0)) as held`,
          )) as unknown as { held: boolean }[];
          if (!lock?.held) return errorAnswer(new AppError("CONFLICT", STILL_RUNNING));
          const earlier = await claimKey(tx as unknown as Db, claim, fingerprint, now, { sweep: false });
          if (earlier !== null) return earlierAnswer(earlier, fingerprint);
          // The procedure's statements share this transaction; its own transactions become savepoints.
          const answer = await produce(tx as unknown as Db);
          if (answer.status >= 500) throw new FailedAnswer(answer);
          const kept = replay ? replay(answer) : answer;
          await tx.update(t).set({ status: kept.status, responseBody: kept.body }).where(ownRow(claim));
          return answer;
        }),
      ),
    );
  } catch (err) {
    if (err instanceof FailedAnswer) return err.answer;
    throw err;
  }
}
