// What keeps this instance's memory current, and says when it is (issue W; docs/scaling.md "Reads from
// memory"). Memory follows the database's change announcements, and an announcement can be late (the relay
// polls), lost (LISTEN reconnecting) or never sent (no relay running). So the instance sends itself a
// heartbeat through the very path changes take, announce(), every HEARTBEAT_MS. Hearing its own heartbeat
// sent at time t proves every change committed before t was announced and heard: the heartbeat's outbox row
// has a higher id than theirs, the relay announces in id order with heartbeats last in a batch, and one
// LISTEN connection hears NOTIFYs in commit order. Memory is served only while such a t is less than
// STALENESS_BOUND_MS old, no refresh it depends on is still reading, and no gap in listening is being
// caught up. Otherwise the caller reads the database.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db, DbHandle } from "../../db/client.js";
import { announcedItems, RELISTEN_BURST_MS } from "../live/change-feed.js";
import { countMemoryRead, dbListenReconnects } from "../observability/metrics.js";
import type { Recall } from "./recall.js";

export const HEARTBEAT_CHANNEL = "memory_heartbeat";
/**
 * Marks the statements memory sends in the background, so a reader of the database's log (and a test that
 * counts a request's statements) can tell them from the request's own.
 */
export const MEMORY_STATEMENT = sql.raw("/* memory */");
/** How often an instance sends itself a heartbeat. */
export const HEARTBEAT_MS = 100;
/** Memory whose newest proof is older than this is not served. */
export const STALENESS_BOUND_MS = 500;
/** The first pause before a failed catch-up is tried again, doubled each time up to the second. */
export const RELOAD_RETRY_MS = 100;
export const RELOAD_RETRY_MAX_MS = 5_000;
/**
 * Heartbeats awaiting their echo at most. One older than the bound can never make memory current, so it is
 * forgotten; this caps the rest when none is heard (behind a transaction-pooling PgBouncer, say).
 */
export const MAX_UNHEARD = 64;

/** Time and timers, given by a test that decides when they fire (test/helpers/memory-world.ts). */
export type Clock = {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
};

/** Node's own timers; none holds the process open. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(run, ms) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export type MemoryConsumer = {
  /**
   * The channels it follows, and what it does with each item announced on them: `hold` keeps memory from
   * being served until the work the item calls for is done.
   */
  channels: Record<string, (item: string, hold: () => () => void) => void>;
  /** Reads everything afresh: at start and after a gap in listening. Memory is not served meanwhile. */
  reload(): Promise<void>;
};

export type MemoryFeed = {
  /** True while memory may be served. */
  current(): boolean;
  /** Memory is not served until the returned function is called (a refresh reading after an announcement). */
  hold(): () => void;
  /**
   * A write of this instance committed: memory is not served until a heartbeat sent after now is heard, so a
   * caller reads its own write at once, before the announcement of it arrives. Sends a heartbeat at once.
   */
  fence(): void;
  /** Milliseconds since the newest heard heartbeat was sent (Infinity before the first). */
  age(): number;
  /** Heartbeats sent and not heard yet, kept to recognise their echo (at most MAX_UNHEARD). */
  unheard(): number;
  stop(): Promise<void>;
};

export type FeedOptions = {
  heartbeatMs?: number;
  boundMs?: number;
  /**
   * The embedded PGlite: every change is announced in process before its commit returns, and listening never
   * breaks, so memory is current whenever nothing holds it; no heartbeat is sent.
   */
  inProcess?: boolean;
  clock?: Clock;
  onError(err: unknown): void;
};

/**
 * Listens on every consumer's channels and the heartbeat's, loads every consumer, then starts the heartbeat.
 * Resolves once loaded; memory is served from the first heartbeat heard.
 */
export async function startMemoryFeed(
  db: Db,
  listen: DbHandle["listen"],
  consumers: readonly MemoryConsumer[],
  options: FeedOptions,
): Promise<MemoryFeed> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const boundMs = options.boundMs ?? STALENESS_BOUND_MS;
  const clock = options.clock ?? systemClock;
  const instance = randomUUID();
  /** Send times of heartbeats not yet heard, by sequence number, oldest first. */
  const sent = new Map<number, number>();
  let seq = 0;
  let heardSentAt = Number.NEGATIVE_INFINITY;
  // The fence compares sequence numbers, not send times: a heartbeat sent in the same millisecond as a
  // write, but before its commit, must not vouch for it.
  let heardSeq = 0;
  let fencedSeq = 0;
  let holds = 0;
  let running = true;

  function hold() {
    holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      holds--;
    };
  }

  let sending: Promise<void> | undefined;
  let sendAgain = false;
  function send() {
    if (sending) {
      sendAgain = true;
      return;
    }
    sending = (async () => {
      do {
        sendAgain = false;
        const n = ++seq;
        const now = clock.now();
        sent.set(n, now);
        forgetUnheard(now);
        // A heartbeat lost in a crash costs nothing: its commit need not wait for the disk.
        await db
          .execute(
            sql`select set_config('synchronous_commit', 'off', true), announce(${HEARTBEAT_CHANNEL}, array[${`${instance}:${n}`}]) ${MEMORY_STATEMENT}`,
          )
          .catch((err) => {
            sent.delete(n);
            if (running) options.onError(err);
          });
      } while (sendAgain && running);
      sending = undefined;
    })();
  }

  // An echo of a forgotten heartbeat is ignored, which only delays serving: safe.
  function forgetUnheard(now: number) {
    for (const [n, at] of sent) {
      if (sent.size <= MAX_UNHEARD && now - at <= boundMs) break;
      sent.delete(n);
    }
  }

  function heard(item: string) {
    const colon = item.lastIndexOf(":");
    if (item.slice(0, colon) !== instance) return;
    const n = Number(item.slice(colon + 1));
    const at = sent.get(n);
    if (at === undefined) return;
    heardSentAt = Math.max(heardSentAt, at);
    heardSeq = Math.max(heardSeq, n);
    for (const k of sent.keys()) if (k <= n) sent.delete(k);
  }

  const reloadAll = () => Promise.all(consumers.map((consumer) => consumer.reload()));

  // A gap in listening. Each channel listened again holds memory and voids the heartbeats heard before, at
  // once; a moment after the last of them, every consumer reads afresh, and again if another comes meanwhile.
  // postgres.js listens again channel by channel, in the order they were first listened, on one connection:
  // the heartbeat's channel is the last, so no heartbeat can vouch for memory before every channel listens.
  const channels = [...new Set(consumers.flatMap((consumer) => Object.keys(consumer.channels))), HEARTBEAT_CHANNEL];
  // A failed catch-up keeps the hold and is tried again, pausing longer each time: the copy from before the
  // gap may miss any change made in it, so it is never served again.
  let gap: { release: () => void; timer?: unknown; reloading: boolean; again: boolean } | undefined;
  const pause = (open: NonNullable<typeof gap>, ms: number) =>
    new Promise<void>((resolve) => {
      open.timer = clock.setTimeout(resolve, ms);
    });
  async function catchUp(open: NonNullable<typeof gap>) {
    open.reloading = true;
    let retryMs = RELOAD_RETRY_MS;
    while (running) {
      open.again = false;
      try {
        await reloadAll();
        if (!open.again) break;
      } catch (err) {
        if (running) options.onError(err);
        await pause(open, retryMs);
        retryMs = Math.min(retryMs * 2, RELOAD_RETRY_MAX_MS);
      }
    }
    if (!running) return;
    gap = undefined;
    open.release();
  }
  function relistened() {
    heardSentAt = Number.NEGATIVE_INFINITY;
    if (!gap) {
      gap = { release: hold(), reloading: false, again: false };
      dbListenReconnects.inc({ channel: "memory" });
    }
    const open = gap;
    if (open.reloading) {
      open.again = true;
      return;
    }
    clock.clearTimeout(open.timer);
    open.timer = clock.setTimeout(() => void catchUp(open), RELISTEN_BURST_MS);
  }

  const handlers = new Map<string, (item: string) => void>();
  for (const consumer of consumers) {
    for (const [channel, handler] of Object.entries(consumer.channels)) {
      const before = handlers.get(channel);
      handlers.set(channel, (item) => {
        before?.(item);
        handler(item, hold);
      });
    }
  }
  handlers.set(HEARTBEAT_CHANNEL, heard);

  dbListenReconnects.inc({ channel: "memory" }, 0);
  const starting = hold();
  const stops: Array<() => Promise<void>> = [];
  for (const channel of channels) {
    const handler = handlers.get(channel)!;
    stops.push(
      await listen(
        channel,
        (payload) => {
          for (const item of announcedItems(payload)) handler(item);
        },
        relistened,
      ),
    );
  }
  await reloadAll().finally(starting);

  if (options.inProcess) {
    return {
      current: () => holds === 0,
      hold,
      fence() {},
      age: () => 0,
      unheard: () => 0,
      async stop() {
        running = false;
        await Promise.allSettled(stops.map((stop) => stop()));
      },
    };
  }

  let timer: unknown;
  const beat = () => {
    if (!running) return;
    timer = clock.setTimeout(beat, heartbeatMs);
    send();
  };
  beat();

  return {
    current: () => holds === 0 && heardSeq > fencedSeq && clock.now() - heardSentAt <= boundMs,
    hold,
    fence() {
      // Only a heartbeat sent from now on can prove the write, which has committed, was heard.
      fencedSeq = seq;
      send();
    },
    age: () => clock.now() - heardSentAt,
    unheard: () => sent.size,
    async stop() {
      running = false;
      clock.clearTimeout(timer);
      clock.clearTimeout(gap?.timer);
      await sending;
      await Promise.allSettled(stops.map((stop) => stop()));
    },
  };
}

/**
 * What `recall` holds for `key` while `memory` can vouch for it, counted in memory_reads_total; undefined
 * when the caller must read the database (and then remember what it read, under the epoch taken before).
 */
export function recalled<V>(
  memory: { current(): boolean } | undefined,
  recall: Recall<V> | undefined,
  key: string,
  kind: "session" | "api_key" | "unread_count",
): V | undefined {
  if (!memory || !recall) return undefined;
  const remembered = memory.current() ? recall.get(key) : undefined;
  countMemoryRead(kind, remembered ? "memory" : "database");
  return remembered;
}
