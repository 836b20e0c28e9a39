// Writing pros' restriction flags with their history (docs/api.md#pro-history). The stored statuses are
// locked first, in proId order as the upsert writes them, so the flag each history row records as `previous`
// is the one it replaced, and two transactions over overlapping pros queue instead of deadlocking. The pro
// ids travel as one array parameter (db/arrays.ts), so 500 pros cost what 1 does to build and send.
import { asc, sql } from "drizzle-orm";
import { textArray } from "../../../db/arrays.js";
import type { DbOrTx } from "../../../db/client.js";
import { proFlagChanges, proRestrictionStatus } from "../../../db/schema/index.js";

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
 * One statement: a history row per pro with the flag it had (read from the same snapshot, before the
 * upsert), then every pro's flag set and tagged. Run it after lockStatuses, inside the transaction.
 */
export function writeFlags(tx: DbOrTx, write: FlagWrite) {
  const ids = textArray([...write.proIds].sort());
  const cohortId = sql`${write.cohortId}::uuid`;
  return tx.execute(sql`
    with input as (select unnest(${ids}) as pro_id),
    history as (
      insert into ${proFlagChanges} (pro_id, restriction_active, previous, via, cohort_id, audit_event_id)
      select input.pro_id, ${write.restrictionActive}, coalesce(stored.restriction_active, false), ${write.via},
             ${cohortId}, ${write.auditEventId}::uuid
      from input left join ${proRestrictionStatus} stored on stored.pro_id = input.pro_id
    )
    insert into ${proRestrictionStatus} (pro_id, restriction_active, cohort_id, updated_at)
    select pro_id, ${write.restrictionActive}, ${cohortId}, now() from input order by pro_id
    on conflict (pro_id) do update set
      restriction_active = excluded.restriction_active, cohort_id = excluded.cohort_id, updated_at = excluded.updated_at`);
}
