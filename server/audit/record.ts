// Writing the audit trail (docs/api.md#audit-trail): one event per admin change, in the change's own
// transaction, so a change that fails or is refused leaves no event and a committed one always has one.
import { randomUUID } from "node:crypto";
import type { DbOrTx } from "../../db/client.js";
import { afterCommit } from "../../db/observe.js";
import { auditEvents, type AuditAction, type AuditTargetType } from "../../db/schema/index.js";
import { countAuditEvent } from "../metrics.js";

export type Actor = { id: string; email: string };
/** Who made a change, and the request that carried it. */
export type AuditSource = { actor: Actor; requestId: string | null };

export type AuditEntry = {
  /** Given when other rows written in the same transaction point at the event (pro_flag_changes). */
  id?: string;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  /** The record as the API shows it before and after the change; null where there is none. */
  before: unknown;
  after: unknown;
  reason?: string | null;
};

export const newAuditEventId = (): string => randomUUID();

/** The source of a change made by a signed-in caller in a request. */
export const auditSource = (ctx: { user: Actor; requestId: string | null }): AuditSource => ({
  actor: { id: ctx.user.id, email: ctx.user.email },
  requestId: ctx.requestId,
});

/**
 * Inserts one event; run it inside the change's transaction. The audit_events_total metric counts it once
 * that transaction has committed.
 */
export async function recordAudit(db: DbOrTx, source: AuditSource, entry: AuditEntry): Promise<void> {
  await db.insert(auditEvents).values({
    id: entry.id ?? newAuditEventId(),
    actorId: source.actor.id,
    actorEmail: source.actor.email,
    action: entry.action,
    targetType: entry.target.type,
    targetId: entry.target.id,
    // jsonb: Dates become the ISO strings the API shows.
    before: entry.before ?? null,
    after: entry.after ?? null,
    reason: entry.reason ?? null,
    requestId: source.requestId,
  });
  afterCommit(db, () => countAuditEvent(entry.action));
}
