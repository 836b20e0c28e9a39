// The OFREP event streams of this instance and the changes they follow. The database announces every
// statement that writes pros' flags (NOTIFY `restriction_flags` with the range of history ids it wrote,
// db/migrations/0009_service_api_keys.sql), and every instance hears it: a cohort of 500 pros is one
// announcement, and this instance reads the pros of that range and their flags once, whatever number of
// streams follow them. A revoked key's streams end on every instance (NOTIFY `api_key_revoked`).
import { between, inArray } from "drizzle-orm";
import type { Db, DbHandle } from "../../db/client.js";
import { proFlagChanges, proRestrictionStatus } from "../../db/schema/index.js";
import { KEY_REVOKED_CHANNEL } from "../auth/api-keys.js";
import { evaluate, flagsEtag } from "./evaluation.js";

export const FLAGS_CHANNEL = "restriction_flags";

/** One change as a stream sends it: OFREP's refetchEvaluation, with the bulk answer's new ETag. */
export type FlagChange = { eventId: string; etag: string };

export type FlagStream = { proId: string; keyId: string; send(change: FlagChange): void; close(): void };

export type FlagChangeHub = {
  /** Follows one pro's flag; returns the function that stops following. */
  add(stream: FlagStream): () => void;
  /** A range `from:to` of history ids was written (the payload of the announcement). */
  flagsWritten(payload: string): Promise<void>;
  keyRevoked(keyId: string): void;
  closeAll(): void;
  /** Streams open on this instance. */
  size(): number;
};

export function createFlagChangeHub(db: Db, onError: (err: unknown) => void): FlagChangeHub {
  const byPro = new Map<string, Set<FlagStream>>();
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

  return {
    add(stream) {
      const set = byPro.get(stream.proId) ?? new Set<FlagStream>();
      byPro.set(stream.proId, set);
      set.add(stream);
      open++;
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        open--;
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
      for (const set of [...byPro.values()]) for (const stream of [...set]) if (stream.keyId === keyId) stream.close();
    },
    closeAll() {
      for (const set of [...byPro.values()]) for (const stream of [...set]) stream.close();
    },
    size: () => open,
  };
}

/** The hub of this instance, fed by the database's announcements when `listen` is given. */
export async function listenForFlagChanges(hub: FlagChangeHub, listen: DbHandle["listen"] | undefined): Promise<() => Promise<void>> {
  if (!listen) return async () => {};
  const stops = [
    await listen(FLAGS_CHANNEL, (payload) => void hub.flagsWritten(payload)),
    await listen(KEY_REVOKED_CHANNEL, hub.keyRevoked),
  ];
  return async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
  };
}
