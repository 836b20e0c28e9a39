// Reading the audit trail in tests: the events written since a mark, straight from the table.
import { asc, gt, max } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { auditEvents } from "../../db/schema/index.js";
import { type AuditEvent, toAuditEvent } from "../../server/audit/listing.js";

/** A mark before an action; `since()` then lists the events written after it, oldest first. */
export async function auditMark(db: Db): Promise<{ since(): Promise<AuditEvent[]> }> {
  const [row] = await db.select({ seq: max(auditEvents.seq) }).from(auditEvents);
  const mark = row?.seq ?? 0;
  return {
    since: async () =>
      (await db.select().from(auditEvents).where(gt(auditEvents.seq, mark)).orderBy(asc(auditEvents.seq))).map(toAuditEvent),
  };
}

/** A value as JSON shows it: Dates become ISO strings, as in an audit event's before and after. */
export const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
