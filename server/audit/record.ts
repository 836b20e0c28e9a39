// Writing the audit trail (docs/api.md#audit-trail): one event per admin change, in the change's own
// transaction, so a change that fails or is refused leaves no event and a committed one always has one.
import { randomUUID } from "node:crypto";
import { getTableColumns, is, type SQL, sql } from "drizzle-orm";
import { type PgTable, PgTimestamp } from "drizzle-orm/pg-core";
import type { DbOrTx } from "../../db/client.js";
import { afterCommit } from "../../db/observe.js";
import { type AuditAction, type AuditTargetType, auditEvents } from "../../db/schema/index.js";
import { countAuditEvent } from "../observability/metrics.js";

export type Actor = { id: string; email: string };
/**
 * Who made a change, and the request that carried it. `impersonatedBy` is the admin behind an impersonation
 * session (better-auth's admin plugin): the actor is then the impersonated user. Absent or null otherwise.
 */
export type AuditSource = { actor: Actor; requestId: string | null; impersonatedBy?: Actor | null };

export type AuditEntry = {
  /** Given when other rows written in the same transaction point at the event (pro_flag_changes). */
  id?: string;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  /** The record as the API shows it before and after the change; null where there is none. */
  before: unknown;
  after: unknown;
  reason?: string | null;
  /** What else the change came with (audit_events.details), e.g. `{approvalBypassed: true}`. */
  details?: Record<string, unknown> | null;
};

export const newAuditEventId = (): string => randomUUID();

/** The source of a change made by a signed-in caller in a request, from the caller's session. */
export const auditSource = (ctx: {
  user: Actor;
  session?: { impersonatedBy?: Actor | null } | null;
  requestId: string | null;
}): AuditSource => {
  const by = ctx.session?.impersonatedBy;
  return {
    actor: { id: ctx.user.id, email: ctx.user.email },
    requestId: ctx.requestId,
    impersonatedBy: by ? { id: by.id, email: by.email } : null,
  };
};

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
    details: entry.details ?? null,
    requestId: source.requestId,
    impersonatorId: source.impersonatedBy?.id ?? null,
    impersonatorEmail: source.impersonatedBy?.email ?? null,
  });
  countOnCommit(db, entry.action);
}

/** Counts an event in audit_events_total once the transaction that wrote it has committed. */
export function countOnCommit(db: DbOrTx, action: AuditAction): void {
  afterCommit(db, () => countAuditEvent(action));
}

/** A string written into the statement's text (for names from the code, never for input). */
const literal = (text: string): SQL => sql.raw(`'${text.replace(/'/g, "''")}'`);

/**
 * A row of `table` as the API shows it, built in SQL as the jsonb recordAudit would store for it: the keys
 * are the table's property names and timestamps are ISO strings to the millisecond in UTC, truncated as
 * Date#toJSON writes the Date the driver makes of them. `row` names the row (a table or CTE alias).
 */
export function recordJson(table: PgTable, row: string): SQL {
  const pairs = Object.entries(getTableColumns(table)).map(([key, column]) => {
    const value = sql`${sql.identifier(row)}.${sql.identifier(column.name)}`;
    const json = is(column, PgTimestamp) ? sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : value;
    return sql`${literal(key)}, ${json}`;
  });
  return sql`jsonb_build_object(${sql.join(pairs, sql`, `)})`;
}

/** An audit event written by the SQL of a larger statement (one data-modifying WITH); all values are SQL. */
export type AuditEventSql = {
  id: SQL;
  actorId: SQL;
  actorEmail: SQL;
  requestId: SQL;
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: SQL;
  /** jsonb expressions, e.g. recordJson of the rows before and after. */
  before: SQL;
  after: SQL;
  reason: SQL;
  /** The AuditSource's impersonatedBy (text values, both null or both set). */
  impersonatedBy: { id: SQL; email: SQL };
  /** The FROM list the values are read from; no rows, no event. */
  from: SQL;
  /** A jsonb expression, or absent for none. */
  details?: SQL;
};

/**
 * The same event as recordAudit writes, as `insert … select` for a data-modifying WITH (the caller counts it
 * with countOnCommit once the statement has run).
 */
export function auditEventInsert(e: AuditEventSql): SQL {
  const by = e.impersonatedBy;
  return sql`insert into ${auditEvents}
      (id, actor_id, actor_email, action, target_type, target_id, before, after, reason, request_id, impersonator_id, impersonator_email, details)
    select ${e.id}::uuid, ${e.actorId}::text, ${e.actorEmail}::text, ${literal(e.action)}, ${literal(e.targetType)}, ${e.targetId}::text,
           ${e.before}, ${e.after}, ${e.reason}::text, ${e.requestId}::text, ${by.id}::text, ${by.email}::text, ${e.details ?? sql`null`}::jsonb
    from ${e.from}`;
}
