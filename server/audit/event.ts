// An audit event as the API shows it (GET /api/admin/audit) and as the audit log exports it: the export's
// `event` is this with `at` as its ISO string, and a leaf of the log is that object's canonical JSON.
import type { auditEvents } from "../../db/schema/index.js";

type AuditRow = typeof auditEvents.$inferSelect;

export type AuditEvent = {
  id: string;
  at: Date;
  actor: { id: string; email: string };
  action: AuditRow["action"];
  target: { type: AuditRow["targetType"]; id: string };
  before: unknown;
  after: unknown;
  reason: string | null;
  requestId: string | null;
  /** The admin behind an impersonation session the change was made with; null otherwise. */
  impersonatedBy: { id: string; email: string } | null;
  details: Record<string, unknown> | null;
};

export const toAuditEvent = (row: AuditRow): AuditEvent => ({
  id: row.id,
  at: row.at,
  actor: { id: row.actorId, email: row.actorEmail },
  action: row.action,
  target: { type: row.targetType, id: row.targetId },
  before: row.before,
  after: row.after,
  reason: row.reason,
  requestId: row.requestId,
  impersonatedBy: row.impersonatorId === null ? null : { id: row.impersonatorId, email: row.impersonatorEmail ?? "" },
  details: (row.details as Record<string, unknown> | null) ?? null,
});

export type ExportedEvent = Omit<AuditEvent, "at"> & { at: string };

/** The event as one line of the export carries it, JSON through and through. */
export const exportedEvent = (row: AuditRow): ExportedEvent => ({ ...toAuditEvent(row), at: row.at.toISOString() });
