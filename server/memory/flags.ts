// Every pro's stored restriction status, in this instance's memory (issue W): OFREP's evaluations and the
// admin pro lookup answer from it while the memory feed vouches for it (feed.ts), and from the database
// otherwise. A full copy, not a cache: a pro with no stored status is answered from memory too (most
// contact attempts are with pros never restricted), which a cache could only do with one negative entry per
// pro ever asked about. docs/scaling.md "Reads from memory" gives the memory it takes.
import { sql } from "drizzle-orm";
import { textArray } from "../../db/arrays.js";
import type { Db } from "../../db/client.js";
import { proRestrictionStatus } from "../../db/schema/index.js";
import type { ProStatus } from "../routers/restriction/pros.js";
import { MEMORY_STATEMENT, type MemoryConsumer, type MemoryFeed } from "./feed.js";

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
  /** Serves from memory from now on, while `feed` says it may. */
  attach(feed: MemoryFeed): void;
  /** Pros with a stored status held. */
  size(): number;
};

/** A stored status as memory keeps it: ~150 bytes a pro with its id, against ~250 for the row as read. */
type Kept = { restrictionActive: boolean; cohortId: string | null; updatedAtMs: number };

export function createFlagMemory(db: Db, onError: (err: unknown) => void): FlagMemory {
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
  /** What refreshes read while a reload runs: applied over the reload's rows, which may be older. */
  let readDuringReload: Map<string, ProStatus | null> | undefined;

  let pending = new Set<string>();
  let releasePending: (() => void) | undefined;
  let draining = false;

  const readStatuses = async (proIds: readonly string[]) =>
    db
      .select()
      .from(proRestrictionStatus)
      .where(sql`${proRestrictionStatus.proId} = any(${textArray(proIds)}) ${MEMORY_STATEMENT}`);

  function apply(proId: string, status: ProStatus | null) {
    if (status) statuses.set(proId, keep(status));
    else statuses.delete(proId);
    readDuringReload?.set(proId, status);
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
        const rows = await readStatuses(proIds);
        const found = new Map(rows.map((row) => [row.proId, row]));
        for (const proId of proIds) apply(proId, found.get(proId) ?? null);
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
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
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
      readDuringReload = new Map();
      try {
        const rows = await db.select().from(proRestrictionStatus).where(sql`true ${MEMORY_STATEMENT}`);
        const loaded = new Map(rows.map((row) => [row.proId, keep(row)]));
        for (const [proId, status] of readDuringReload) {
          if (status) loaded.set(proId, keep(status));
          else loaded.delete(proId);
        }
        statuses = loaded;
      } finally {
        readDuringReload = undefined;
      }
    },
    status(proId) {
      if (!feed?.current()) return undefined;
      const kept = statuses.get(proId);
      return kept
        ? { proId, restrictionActive: kept.restrictionActive, cohortId: kept.cohortId, updatedAt: new Date(kept.updatedAtMs) }
        : null;
    },
    attach(given) {
      feed = given;
    },
    size: () => statuses.size,
  };
}
