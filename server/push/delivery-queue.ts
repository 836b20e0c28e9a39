// Durable push delivery (docs/api.md#durable-push-delivery): the push_deliveries table is the queue. Every
// instance claims due deliveries with FOR UPDATE SKIP LOCKED and a lease (PUSH_LEASE_SECONDS), so two
// instances never take the same one and a delivery whose instance died is taken again once its lease ends.
// The table is the queue rather than pg-boss or graphile-worker: both need a `pg` connection, and the
// embedded PGlite (one process, one connection) must drain the same queue.
//
// A send never outlives its lease, so a second instance can never send while the first still does. Each claim
// has its own token. Right before sending, one conditional UPDATE checks the token is still ours, counts the
// attempt and renews the lease from that moment; the send is then cut (aborted) before that renewed lease
// ends, measured from just before the UPDATE was issued. Whatever the database waits before it, a send
// starts only under a lease that outlasts it. Only the token's holder records the answer. That UPDATE also asks
// for status `queued`: a delivery superseded by a newer one of its topic (collapse.ts) is never sent.
import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { pushDeliveries, pushSubscriptions } from "../../db/schema/index.js";
import { countPushStage, pushQueueDepth, pushQueueOldest } from "../observability/metrics.js";
import { afterAttempt } from "./retry.js";
import { type PushService, type PushTarget, pushTargetColumns, type Urgency } from "./sender.js";

export const DEFAULT_LEASE_SECONDS = 30;
/** How long before its lease ends a send is cut: a quarter of the lease, at most 2 s (timers fire late). */
const leaseMarginMs = (leaseSeconds: number) => Math.min(2000, leaseSeconds * 250);
/** A send with less time than this left before its lease ends is not started; the claim is given back. */
const MIN_SEND_MS = 100;
/** How often an instance reads the queue's depth and oldest age for its metrics. */
const STATE_EVERY_MS = 5000;

export type DeliveryQueueOptions = {
  db: Db;
  push: PushService;
  /** PUSH_RETRY_BASE_MS: the first retry's delay, doubling after. */
  retryBaseMs: number;
  /** PUSH_LEASE_SECONDS: how long a claim holds a delivery; a send is cut before it ends. */
  leaseSeconds?: number;
  /** Deliveries claimed at once. */
  batchSize?: number;
  /** How often an idle instance looks for due deliveries (others' and retries). */
  pollMs?: number;
  onError(err: unknown): void;
  /** Tests: runs after a claim commits and before its sends, to hold an instance at that point. */
  afterClaim?(deliveryIds: string[]): Promise<void>;
};

type Claimed = {
  id: string;
  subscriptionId: string;
  payload: unknown;
  urgency: string;
  topic: string | null;
  leaseToken: string | null;
  ageSeconds: number;
};

export type DeliveryQueue = {
  /** Look for due deliveries now (after a commit that queued some). */
  wake(): void;
  /** Stops claiming; resolves once the deliveries in hand are recorded. */
  stop(): Promise<void>;
  /** Resolves when the queue has nothing due left (tests). */
  drained(): Promise<void>;
};

export function startDeliveryQueue(options: DeliveryQueueOptions): DeliveryQueue {
  const { db, push } = options;
  const batchSize = options.batchSize ?? 20;
  const pollMs = options.pollMs ?? 1000;
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const lease = sql`now() + make_interval(secs => ${leaseSeconds})`;
  let running = true;
  let wakeUp: (() => void) | null = null;
  const idleWaiters: (() => void)[] = [];

  async function claim(): Promise<Claimed[]> {
    const due = db
      .select({ id: pushDeliveries.id })
      .from(pushDeliveries)
      .where(
        and(
          eq(pushDeliveries.status, "queued"),
          lte(pushDeliveries.nextAttemptAt, sql`now()`),
          or(isNull(pushDeliveries.leaseUntil), lt(pushDeliveries.leaseUntil, sql`now()`)),
        ),
      )
      .orderBy(asc(pushDeliveries.nextAttemptAt))
      .limit(batchSize)
      .for("update", { skipLocked: true });
    return db
      .update(pushDeliveries)
      .set({ leaseUntil: lease, leaseToken: sql`gen_random_uuid()` })
      .where(inArray(pushDeliveries.id, due))
      .returning({
        id: pushDeliveries.id,
        subscriptionId: pushDeliveries.subscriptionId,
        payload: pushDeliveries.payload,
        urgency: pushDeliveries.urgency,
        topic: pushDeliveries.topic,
        leaseToken: pushDeliveries.leaseToken,
        ageSeconds: sql<number>`extract(epoch from now() - ${pushDeliveries.createdAt})::float8`,
      });
  }

  const ours = (delivery: Claimed) => and(eq(pushDeliveries.id, delivery.id), eq(pushDeliveries.leaseToken, delivery.leaseToken!));

  /**
   * Right before a send: still our claim? Then the attempt is counted and the lease renewed. Answers the
   * attempt's number and the moment (performance.now()) by which the send must have ended, or null when
   * another instance has claimed the delivery since (our lease ran out during the database waits).
   */
  async function takeForSend(delivery: Claimed): Promise<{ attempts: number; endBy: number } | null> {
    const asked = performance.now();
    const [row] = await db
      .update(pushDeliveries)
      .set({ attempts: sql`${pushDeliveries.attempts} + 1`, leaseUntil: lease })
      .where(and(ours(delivery), eq(pushDeliveries.status, "queued")))
      .returning({ attempts: pushDeliveries.attempts });
    return row ? { attempts: row.attempts, endBy: asked + leaseSeconds * 1000 - leaseMarginMs(leaseSeconds) } : null;
  }

  /** Ends our claim with what the attempt came to; a claim another instance has taken since is left alone. */
  async function record(delivery: Claimed, set: Partial<typeof pushDeliveries.$inferInsert>) {
    await db
      .update(pushDeliveries)
      .set({ ...set, leaseUntil: null, leaseToken: null })
      .where(ours(delivery));
  }

  /**
   * What a send led to, recorded while the lease is still ours: a recording that fails (the database briefly
   * away) is tried again, 0.1 s doubling to 1 s, until `endBy`. Given up, the delivery would stay claimed
   * and be sent again when its lease ran out, with no crash anywhere (found by the chaos soak).
   */
  async function recordSent(delivery: Claimed, set: Partial<typeof pushDeliveries.$inferInsert>, endBy: number) {
    for (let waitMs = 100; ; waitMs = Math.min(waitMs * 2, 1000)) {
      try {
        return await record(delivery, set);
      } catch (err) {
        if (!running || performance.now() + waitMs >= endBy) throw err;
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
    }
  }

  /** A counted attempt that sent nothing is not one: the count goes back. */
  const uncount = { attempts: sql`${pushDeliveries.attempts} - 1` as never };

  async function attempt(delivery: Claimed, target: PushTarget | undefined) {
    if (!target) return record(delivery, { status: "failed", lastError: "The subscription is no longer active" });
    const taken = await takeForSend(delivery);
    if (!taken) return;
    const timeoutMs = taken.endBy - performance.now();
    // The database answered so late that the lease would end mid-send: give the claim back unsent.
    if (timeoutMs < MIN_SEND_MS) return record(delivery, uncount);
    const result = await push.attempt(target, JSON.stringify(delivery.payload), {
      urgency: delivery.urgency as Urgency,
      topic: delivery.topic,
      timeoutMs,
    });
    // Nothing was sent (keys that cannot be encrypted to, a subject Apple refuses): final, and no attempt.
    if ("unencryptable" in result)
      return record(delivery, { ...uncount, status: "failed", lastError: result.unencryptable, lastStatusCode: null });
    const { answer, retryAfterSeconds } = result;
    const expiresInMs = (push.ttlSeconds - delivery.ageSeconds) * 1000;
    const outcome = afterAttempt(answer, taken.attempts, { baseMs: options.retryBaseMs, retryAfterSeconds, expiresInMs });
    const lastStatusCode = "status" in answer ? answer.status : null;
    const lastError =
      outcome.status === "sent"
        ? null
        : "expired" in outcome
          ? `Not retried: the next attempt (in ${Math.round(outcome.expired.delayMs / 1000)} s) would fall after the message's TTL`
          : "status" in answer
            ? `Push service answered HTTP ${answer.status}`
            : answer.failure === "address"
              ? "endpoint address not allowed"
              : `${answer.failure}: ${answer.message}`;
    if (outcome.status === "queued") {
      return recordSent(
        delivery,
        { lastStatusCode, lastError, nextAttemptAt: sql`now() + make_interval(secs => ${outcome.delayMs / 1000})` as never },
        taken.endBy,
      );
    }
    if (outcome.status === "gone") {
      await db.update(pushSubscriptions).set({ isActive: false, updatedAt: new Date() }).where(eq(pushSubscriptions.id, target.id));
    }
    if (outcome.status === "sent") countPushStage("accepted");
    return recordSent(
      delivery,
      { status: outcome.status, lastStatusCode, lastError, ...(outcome.status === "sent" ? { sentAt: new Date() } : {}) },
      taken.endBy,
    );
  }

  async function drainOnce(): Promise<number> {
    const claimed = await claim();
    if (!claimed.length) return 0;
    await options.afterClaim?.(claimed.map((d) => d.id));
    const targets = await db
      .select(pushTargetColumns)
      .from(pushSubscriptions)
      .where(and(inArray(pushSubscriptions.id, [...new Set(claimed.map((d) => d.subscriptionId))]), eq(pushSubscriptions.isActive, true)));
    const byId = new Map(targets.map((t) => [t.id, t]));
    await Promise.all(claimed.map((d) => attempt(d, byId.get(d.subscriptionId)).catch(options.onError)));
    return claimed.length;
  }

  let stateReadAt = 0;
  async function reportState() {
    if (Date.now() - stateReadAt < STATE_EVERY_MS) return;
    stateReadAt = Date.now();
    const state = await queueState(db);
    pushQueueDepth.set(state.depth);
    pushQueueOldest.set(state.oldestSeconds);
  }

  const loop = (async () => {
    while (running) {
      let worked = 0;
      try {
        worked = await drainOnce();
        await reportState();
      } catch (err) {
        options.onError(err);
      }
      if (worked) continue;
      for (const resolve of idleWaiters.splice(0)) resolve();
      // stop() may have come while this round ran, when there was no sleep to cut short yet.
      if (!running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = null;
    }
  })();

  return {
    wake: () => wakeUp?.(),
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
    },
    drained: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        wakeUp?.();
      }),
  };
}

/** The queue's depth and the age of its oldest queued delivery (push_queue_depth, push_queue_oldest_seconds). */
export async function queueState(db: Db): Promise<{ depth: number; oldestSeconds: number }> {
  const [row] = await db
    .select({
      depth: sql<number>`count(*)::int`,
      oldestSeconds: sql<number>`coalesce(extract(epoch from now() - min(${pushDeliveries.createdAt})), 0)::float8`,
    })
    .from(pushDeliveries)
    .where(eq(pushDeliveries.status, "queued"));
  return { depth: row?.depth ?? 0, oldestSeconds: row?.oldestSeconds ?? 0 };
}
