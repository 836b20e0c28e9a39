// Writing pros' restriction flags with their history (docs/api.md#pro-history). The stored statuses are
// locked first, in proId order as the upsert writes them, so the flag each change records as `previous`
// is the one it replaced, and two transactions over overlapping pros queue instead of deadlocking.
import { asc, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "../../../db/client.js";
import { afterCommit } from "../../../db/observe.js";
import { auditEvents, proFlagChanges, proRestrictionStatus } from "../../../db/schema/index.js";
import type { AuditEntry, AuditSource } from "../../audit/record.js";
import { countAuditEvent } from "../../metrics.js";

export type StoredStatus = typeof proRestrictionStatus.$inferSelect;

/** Locks the stored statuses of these pros and returns them by pro id. */
export async function lockStatuses(tx: DbOrTx, proIds: readonly string[]): Promise<Map<string, StoredStatus>> {
  const rows = await tx
    .select()
    .from(proRestrictionStatus)
    .where(inArray(proRestrictionStatus.proId, [...proIds]))
    .orderBy(asc(proRestrictionStatus.proId))
    .for("update");
  return new Map(rows.map((row) => [row.proId, row]));
}

export type FlagChange = {
  proIds: readonly string[];
  restrictionActive: boolean;
  /** The flags before the change, from lockStatuses; a pro without a status was off. */
  before: ReadonlyMap<string, StoredStatus>;
  via: "pro" | "cohort";
  cohortId: string | null;
};

const textArray = (values: readonly string[]) => sql`array[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]`;
const boolArray = (values: readonly boolean[]) => sql`array[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::boolean[]`;

/**
 * One statement: the audit event of the change and a pro_flag_changes row per pro pointing at it. It
 * reads nothing back, so it is the same on both drivers. The audit_events_total metric counts the event once
 * the transaction has committed.
 */
export async function recordFlagChanges(
  tx: DbOrTx,
  source: AuditSource,
  event: AuditEntry & { id: string },
  change: FlagChange,
): Promise<void> {
  const previous = change.proIds.map((proId) => change.before.get(proId)?.restrictionActive ?? false);
  const json = (value: unknown) => (value === null || value === undefined ? sql`null` : sql`${JSON.stringify(value)}::jsonb`);
  await tx.execute(sql`
    with event as (
      insert into ${auditEvents} (id, actor_id, actor_email, action, target_type, target_id, before, after, reason, request_id)
      values (${event.id}, ${source.actor.id}, ${source.actor.email}, ${event.action}, ${event.target.type},
              ${event.target.id}, ${json(event.before)}, ${json(event.after)}, ${event.reason ?? null}, ${source.requestId})
    )
    insert into ${proFlagChanges} (pro_id, restriction_active, previous, via, cohort_id, audit_event_id)
    select changed.pro_id, ${change.restrictionActive}, changed.previous, ${change.via}, ${change.cohortId}::uuid, ${event.id}::uuid
    from unnest(${textArray(change.proIds)}, ${boolArray(previous)}) as changed(pro_id, previous)`);
  afterCommit(tx, () => countAuditEvent(event.action));
}
