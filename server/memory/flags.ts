// Every pro's stored restriction status, in this instance's memory (issue W): OFREP's evaluations and the
// admin pro lookup answer from it while the memory feed vouches for it (feed.ts), and from the database
// otherwise. A full copy, not a cache: a pro with no stored status is answered from memory too (most
// contact attempts are with pros never restricted), which a cache could only do with one negative entry per
// pro ever asked about. docs/scaling.md "Reads from memory" gives the memory it takes.
import { sql } from "drizzle-orm";
import { textArray } from "../../db/arrays.js";
import type { Db } from "../../db/client.js";
import { proRestrictionStatus } from "../../db/schema/index.js";
import type { ProStatus, StoredFlag } from "../../db/schema/restriction-values.js";
import { type Clock, MEMORY_STATEMENT, type MemoryConsumer, type MemoryFeed, systemClock } from "./feed.js";

/** Announced with the ids of pros whose stored status was written (migration 0020). */
export const PRO_STATUS_CHANNEL = "pro_status";
/** Pause before a failed refresh is tried again; memory is not served meanwhile. */
const RETRY_MS = 1000;

export type FlagMemory = MemoryConsumer & {
  /**
   * The pro's stored status: null when it has none, undefined when memory cannot vouch for it now (the
   * caller reads the database).
   */
  status(proId: string): ProStatus | null | undefined;
  /**
   * What an OFREP evaluation reads of the pro's stored status, as memory holds it (no copy made: an
   * evaluation asks on every request); null and undefined as for `status`.
   */
  flag(proId: string): StoredFlag | null | undefined;
  /** Serves from memory from now on, while `feed` says it may. */
  attach(feed: MemoryFeed): void;
  /** Pros with a stored status held. */
  size(): number;
};

/** A stored status as memory keeps it: ~150 bytes a pro with its id, against ~250 for the row as read. */
type Kept = StoredFlag & { readonly updatedAtMs: number };

export function createFlagMemory(db: Db, onError: (err: unknown) => void, clock: Clock = systemClock): FlagMemory {
  let statuses = new Map<string, Kept>();
  /** One copy of each cohort id, shared by its pros. */
  const cohortIds = new Map<string, string>();
  const intern = (id: string | null) => {
    if (id === null) return null;
    const known = cohortIds.get(id);
    if (known) return known;
    cohortIds.set(id, id);
    return id;
  };
  const keep = (row: ProStatus): Kept => ({
    restrictionActive: row.restrictionActive,
    cohortId: intern(row.cohortId),
    updatedAtMs: row.updatedAt.getTime(),
  });
  let feed: MemoryFeed | undefined;
  // Every SELECT takes a generation when it is sent. A re-read answered during or after a reload is applied
  // over the reload's rows only if it was sent after the reload's SELECT: one sent before may hold an older
  // snapshot, and the reload's rows already hold every change announced before it was sent.
  let generation = 0;
  /** The reloads running, each with what later re-reads found meanwhile. */
  const reloads = new Set<{ generation: number; read: Map<string, ProStatus | null> }>();
  /** The generation of the reload whose rows memory holds: an older reload finishing later is dropped. */
  let loadedGeneration = 0;

  let pending = new Set<string>();
  let releasePending: (() => void) | undefined;
  let draining = false;

  const readStatuses = async (proIds: readonly string[]) =>
    db
      .select()
      .from(proRestrictionStatus)
      .where(sql`${proRestrictionStatus.proId} = any(${textArray(proIds)}) ${MEMORY_STATEMENT}`);

  function apply(proId: string, status: ProStatus | null, readAt: number) {
    if (readAt < loadedGeneration) return; // the reload memory holds was sent later
    if (status) statuses.set(proId, keep(status));
    else statuses.delete(proId);
    for (const reload of reloads) if (readAt > reload.generation) reload.read.set(proId, status);
  }

  // One read at a time, for every pro announced meanwhile; memory is held from an announcement until the
  // read that follows it is applied, so a status is never served between its commit and its refresh.
  async function drain() {
    draining = true;
    while (pending.size) {
      const proIds = [...pending];
      const release = releasePending!;
      pending = new Set();
      releasePending = undefined;
      try {
        const readAt = ++generation;
        const rows = await readStatuses(proIds);
        const found = new Map(rows.map((row) => [row.proId, row]));
        for (const proId of proIds) apply(proId, found.get(proId) ?? null, readAt);
        release();
      } catch (err) {
        onError(err);
        // Still held: the same pros are read again.
        for (const proId of proIds) pending.add(proId);
        const previous = releasePending as (() => void) | undefined; // set by announcements during the read
        releasePending = () => {
          previous?.();
          release();
        };
        await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), RETRY_MS));
      }
    }
    draining = false;
  }

  return {
    channels: {
      [PRO_STATUS_CHANNEL]: (proId, hold) => {
        pending.add(proId);
        releasePending ??= hold();
        if (!draining) void drain();
      },
    },
    async reload() {
      const reload = { generation: ++generation, read: new Map<string, ProStatus | null>() };
      reloads.add(reload);
      try {
        const rows = await db.select().from(proRestrictionStatus).where(sql`true ${MEMORY_STATEMENT}`);
        const loaded = new Map(rows.map((row) => [row.proId, keep(row)]));
        for (const [proId, status] of reload.read) {
          if (status) loaded.set(proId, keep(status));
          else loaded.delete(proId);
        }
        // Two reloads overlap when listening breaks during the load at start.
        if (reload.generation > loadedGeneration) {
          statuses = loaded;
          loadedGeneration = reload.generation;
        }
      } finally {
        reloads.delete(reload);
      }
    },
    status(proId) {
      if (!feed?.current()) return undefined;
      const kept = statuses.get(proId);
      return kept
        ? { proId, restrictionActive: kept.restrictionActive, cohortId: kept.cohortId, updatedAt: new Date(kept.updatedAtMs) }
        : null;
    },
    flag(proId) {
      if (!feed?.current()) return undefined;
      return statuses.get(proId) ?? null;
    },
    attach(given) {
      feed = given;
    },
    size: () => statuses.size,
  };
}
