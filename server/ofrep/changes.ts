// The OFREP event streams of this instance and the changes they follow. The database announces every
// statement that writes pros' flags (NOTIFY `restriction_flags` with the range of history ids it wrote,
// db/migrations/0009_service_api_keys.sql), and every instance hears it: a cohort of 500 pros is one
// announcement, and this instance reads the pros of that range and their flags once, whatever number of
// streams follow them. A revoked key's streams end on every instance (NOTIFY `api_key_revoked`).
import { between, inArray } from "drizzle-orm";
import type { Db, DbHandle } from "../../db/client.js";
import { proFlagChanges, proRestrictionStatus } from "../../db/schema/index.js";
import { KEY_REVOKED_CHANNEL, keysStillValid } from "../auth/api-keys.js";
import { TooManyRequestsError } from "../errors/errors.js";
import { followChannel } from "../live/change-feed.js";
import { evaluate, flagsEtag } from "./evaluation.js";

export const FLAGS_CHANNEL = "restriction_flags";

/**
 * One change as a stream sends it: OFREP's refetchEvaluation, with the bulk answer's new ETag; without
 * either when announcements may have been missed (the client then asks with its own If-None-Match).
 */
export type FlagChange = { eventId?: string; etag?: string };

export type FlagStream = { proId: string; keyId: string; send(change: FlagChange): void; close(): void };

export type FlagChangeHub = {
  /**
   * Follows one pro's flag; returns the function that stops following. Throws a TooManyRequestsError when
   * its stream address (key and pro) or its key already has as many streams open as the bounds allow.
   */
  add(stream: FlagStream): () => void;
  /** A range `from:to` of history ids was written (the payload of the announcement). */
  flagsWritten(payload: string): Promise<void>;
  keyRevoked(keyId: string): void;
  /** Announcements of written flags may have been missed: every stream is told to evaluate again. */
  refetchAll(): Promise<void>;
  /** Announcements of revoked keys may have been missed: streams whose key no longer works close. */
  recheckKeys(): Promise<void>;
  closeAll(): void;
  /** Streams open on this instance. */
  size(): number;
};

/** Open streams allowed per stream address (OFREP_STREAMS_PER_TARGET) and per key on this instance (OFREP_STREAMS_PER_KEY). */
export type FlagStreamBounds = { perTarget: number; perKey: number };

export const DEFAULT_FLAG_STREAM_BOUNDS: FlagStreamBounds = { perTarget: 32, perKey: 10_000 };

/** How long a caller refused for too many streams is told to wait: until one of its streams has closed, likely. */
const STREAM_RETRY_AFTER_SECONDS = 5;

export function createFlagChangeHub(
  db: Db,
  onError: (err: unknown) => void,
  bounds: FlagStreamBounds = DEFAULT_FLAG_STREAM_BOUNDS,
): FlagChangeHub {
  const byPro = new Map<string, Set<FlagStream>>();
  /** Open streams per key, and per stream address (key and pro). */
  const perKey = new Map<string, number>();
  const perTarget = new Map<string, number>();
  let open = 0;
  // Announcements are handled one at a time, in order: a later change's ETag is never sent before an earlier one's.
  let queue = Promise.resolve();

  async function readAndSend(from: number, to: number) {
    if (byPro.size === 0) return;
    const written = await db
      .selectDistinct({ proId: proFlagChanges.proId })
      .from(proFlagChanges)
      .where(between(proFlagChanges.id, from, to));
    const followed = written.map((row) => row.proId).filter((proId) => byPro.has(proId));
    if (!followed.length) return;
    const statuses = await db
      .select({
        proId: proRestrictionStatus.proId,
        restrictionActive: proRestrictionStatus.restrictionActive,
        cohortId: proRestrictionStatus.cohortId,
      })
      .from(proRestrictionStatus)
      .where(inArray(proRestrictionStatus.proId, followed));
    const statusOf = new Map(statuses.map((s) => [s.proId, s]));
    for (const proId of followed) {
      const change = { eventId: String(to), etag: flagsEtag([evaluate(statusOf.get(proId))]) };
      for (const stream of byPro.get(proId) ?? []) stream.send(change);
    }
  }

  const everyStream = () => [...byPro.values()].flatMap((set) => [...set]);
  const bump = (counts: Map<string, number>, key: string, by: number) => {
    const n = (counts.get(key) ?? 0) + by;
    if (n > 0) counts.set(key, n);
    else counts.delete(key);
  };

  return {
    add(stream) {
      const target = `${stream.keyId}\n${stream.proId}`;
      if ((perTarget.get(target) ?? 0) >= bounds.perTarget) {
        throw new TooManyRequestsError(
          STREAM_RETRY_AFTER_SECONDS,
          `At most ${bounds.perTarget} event streams per key and targeting key are open at once; close one first`,
        );
      }
      if ((perKey.get(stream.keyId) ?? 0) >= bounds.perKey) {
        throw new TooManyRequestsError(
          STREAM_RETRY_AFTER_SECONDS,
          `At most ${bounds.perKey} event streams per key are open at once on an instance; close one first`,
        );
      }
      const set = byPro.get(stream.proId) ?? new Set<FlagStream>();
      byPro.set(stream.proId, set);
      set.add(stream);
      open++;
      bump(perTarget, target, 1);
      bump(perKey, stream.keyId, 1);
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        open--;
        bump(perTarget, target, -1);
        bump(perKey, stream.keyId, -1);
        set.delete(stream);
        if (!set.size) byPro.delete(stream.proId);
      };
    },
    flagsWritten(payload) {
      const [from, to] = payload.split(":").map(Number);
      if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) return Promise.resolve();
      queue = queue.then(() => readAndSend(from!, to!)).catch(onError);
      return queue;
    },
    keyRevoked(keyId) {
      for (const stream of everyStream()) if (stream.keyId === keyId) stream.close();
    },
    refetchAll() {
      // In the queue, after the announcements already heard: an older ETag never follows this refetch.
      queue = queue
        .then(() => {
          for (const stream of everyStream()) stream.send({});
        })
        .catch(onError);
      return queue;
    },
    async recheckKeys() {
      const checked = everyStream();
      if (!checked.length) return;
      const valid = await keysStillValid(db, [...new Set(checked.map((stream) => stream.keyId))]);
      for (const stream of checked) if (!valid.has(stream.keyId)) stream.close();
    },
    closeAll() {
      for (const stream of everyStream()) stream.close();
    },
    size: () => open,
  };
}

/**
 * The hub of this instance, fed by the database's announcements when `listen` is given; after a gap in
 * listening every stream is told to evaluate again and the streams of keys that stopped working close.
 */
export async function listenForFlagChanges(
  hub: FlagChangeHub,
  listen: DbHandle["listen"] | undefined,
  onError: (err: unknown) => void,
): Promise<() => Promise<void>> {
  if (!listen) return async () => {};
  const stops = [
    await followChannel(listen, FLAGS_CHANNEL, {
      onPayload: (payload) => void hub.flagsWritten(payload),
      catchUp: hub.refetchAll,
      onError,
    }),
    await followChannel(listen, KEY_REVOKED_CHANNEL, { onPayload: hub.keyRevoked, catchUp: hub.recheckKeys, onError }),
  ];
  return async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
  };
}
