// Writing pros' restriction flags with their history (docs/api.md#pro-history), in one statement for any
// number of pros (flagWriteCtes): the stored statuses are locked first, in proId order as the upsert writes
// them, so the flag each history row records as `previous` is the one it replaced, and two transactions
// over overlapping pros queue instead of deadlocking. A cohort's change embeds it in its own statement
// (cohorts.ts); a pro's runs it after lockStatuses (pros.ts). Pro ids travel as one array (db/arrays.ts or
// the cohort's own column), so 500 pros cost what 1 does to build and send.
import { asc, type SQL, sql } from "drizzle-orm";
import { rowsOf, textArray } from "../../db/arrays.js";
import type { DbOrTx } from "../../db/client.js";
import { proFlagChanges, proRestrictionStatus } from "../../db/schema/index.js";

export type StoredStatus = typeof proRestrictionStatus.$inferSelect;

/** Locks the stored statuses of these pros and returns them by pro id. */
export async function lockStatuses(tx: DbOrTx, proIds: readonly string[]): Promise<Map<string, StoredStatus>> {
  const rows = await tx
    .select()
    .from(proRestrictionStatus)
    .where(sql`${proRestrictionStatus.proId} = any(${textArray(proIds)})`)
    .orderBy(asc(proRestrictionStatus.proId))
    .for("update");
  return new Map(rows.map((row) => [row.proId, row]));
}

/**
 * What an approval compares under (preview.ts impactNow): the stored statuses of these pros locked in proId
 * order, then the place of each pro that has none held, also in proId order, as flagWriteCtes writes them.
 * A pro's first write in flight is waited for (an insert meets its key) and its row locked; one started
 * later waits for this transaction. The places are rows inserted and deleted again at once, so nothing of
 * them is ever seen; a conflicting row is locked, not changed (DO UPDATE ... WHERE false).
 */
export async function holdStatuses(tx: DbOrTx, proIds: readonly string[]): Promise<void> {
  await lockStatuses(tx, proIds);
  const placed = rowsOf<{ pro_id: string }>(
    await tx.execute(sql`
      insert into ${proRestrictionStatus} (pro_id) select p from unnest(${textArray(proIds)}) as p order by p
      on conflict (pro_id) do update set restriction_active = ${proRestrictionStatus}.restriction_active where false
      returning pro_id`),
  ).map((row) => row.pro_id);
  if (placed.length) await tx.delete(proRestrictionStatus).where(sql`${proRestrictionStatus.proId} = any(${textArray(placed)})`);
}

export type FlagWrite = {
  proIds: readonly string[];
  restrictionActive: boolean;
  via: "pro" | "cohort";
  /** The cohort whose action this is; null per pro. */
  cohortId: string | null;
  /** The audit event of the change, written in the same transaction. */
  auditEventId: string;
};

/**
 * One statement: flagWriteCtes with these values (its lock of the statuses is this transaction's own by
 * then). Run it after lockStatuses, inside the transaction.
 */
export function writeFlags(tx: DbOrTx, write: FlagWrite) {
  const ctes = flagWriteCtes(tx, {
    proIds: textArray(write.proIds),
    restrictionActive: write.restrictionActive,
    via: write.via,
    cohortId: sql`${write.cohortId}::uuid`,
    auditEventId: sql`${write.auditEventId}::uuid`,
  });
  return tx
    .with(...ctes)
    .select({ written: sql<number>`count(*)::int` })
    .from(ctes[1]);
}

/** A flag write as SQL values, for a statement that computes them (a cohort's change: flagWriteCtes). */
export type FlagWriteSql = {
  /** A text[] expression: the pros to write, each once (null or empty: nothing is written). */
  proIds: SQL;
  restrictionActive: boolean;
  via: "pro" | "cohort";
  /** A uuid expression, null per pro. */
  cohortId: SQL;
  auditEventId: SQL;
};

/**
 * The same write as lockStatuses then writeFlags, as CTEs of one data-modifying WITH (in this order):
 * `locked` locks the stored statuses in proId order and aggregates their flags, so every lock is taken
 * before any row below exists; `changes` is every pro with the flag it had (false when none), read from
 * those locked rows, which are the latest versions even when this statement waited for them; `history`
 * writes one row per pro; `flagged` upserts every pro in proId order. Only the latest versions count
 * here, so the statement must start after any lock it depends on is held (the cohort's: cohorts.ts).
 */
export function flagWriteCtes(db: DbOrTx, write: FlagWriteSql) {
  const active = sql.raw(write.restrictionActive ? "true" : "false");
  const via = sql.raw(`'${write.via}'`);
  const locked = db.$with("locked", {}).as(sql`
    select coalesce(jsonb_object_agg(s.pro_id, s.restriction_active), '{}') as flags
    from (select pro_id, restriction_active from ${proRestrictionStatus}
          where pro_id = any(${write.proIds}) order by pro_id for update) s`);
  const changes = db.$with("changes", { proId: sql<string>`pro_id`.as("pro_id"), previous: sql<boolean>`previous`.as("previous") }).as(sql`
    select p.pro_id, coalesce((locked.flags ->> p.pro_id)::boolean, false) as previous
    from locked, unnest(${write.proIds}) as p(pro_id)`);
  const history = db.$with("history", {}).as(sql`
    insert into ${proFlagChanges} (pro_id, restriction_active, previous, via, cohort_id, audit_event_id)
    select pro_id, ${active}, previous, ${via}, ${write.cohortId}, ${write.auditEventId}
    from changes order by pro_id`);
  const flagged = db.$with("flagged", {}).as(sql`
    insert into ${proRestrictionStatus} (pro_id, restriction_active, cohort_id, updated_at)
    select pro_id, ${active}, ${write.cohortId}, now() from changes order by pro_id
    on conflict (pro_id) do update set
      restriction_active = excluded.restriction_active, cohort_id = excluded.cohort_id, updated_at = excluded.updated_at`);
  return [locked, changes, history, flagged] as const;
}
