// The audit log, newest first, filtered and paged by cursor; every filter is answered from an index of
// audit_events (db/schema/audit.ts).
import { and, desc, eq, gte, inArray, lt, lte, or, type SQL, sql } from "drizzle-orm";
import { auditEvents, proFlagChanges } from "../../db/schema/index.js";
import type { Db } from "../../db/types.js";
import { toAuditEvent } from "./event.js";
import { decodeCursor, encodeCursor } from "./listing-cursor.js";
import { DEFAULT_AUDIT_LIMIT, type ListAuditInput } from "./listing-schemas.js";

export { type AuditEvent, toAuditEvent } from "./event.js";

function filters({ ctx, input }: { ctx: { db: Db }; input: ListAuditInput }): SQL[] {
  const where: SQL[] = [];
  if (input.action) where.push(eq(auditEvents.action, input.action));
  if (input.targetType) where.push(eq(auditEvents.targetType, input.targetType));
  if (input.targetId) where.push(eq(auditEvents.targetId, input.targetId));
  // An admin's acts include those made under an impersonation session (the actor then is the user impersonated).
  if (input.actorId) where.push(or(eq(auditEvents.actorId, input.actorId), eq(auditEvents.impersonatorId, input.actorId))!);
  if (input.actorEmail) {
    const email = input.actorEmail.toLowerCase();
    where.push(or(eq(sql`lower(${auditEvents.actorEmail})`, email), eq(sql`lower(${auditEvents.impersonatorEmail})`, email))!);
  }
  // A pro's own events, and the cohort changes that switched its flag (its history names their events).
  if (input.proId) {
    const changedBy = ctx.db.select({ id: proFlagChanges.auditEventId }).from(proFlagChanges).where(eq(proFlagChanges.proId, input.proId));
    where.push(or(and(eq(auditEvents.targetType, "pro"), eq(auditEvents.targetId, input.proId)), inArray(auditEvents.id, changedBy))!);
  }
  if (input.since) where.push(gte(auditEvents.at, new Date(input.since)));
  if (input.until) where.push(lte(auditEvents.at, new Date(input.until)));
  // The input schema has refused any cursor this log did not make.
  const seq = input.cursor === undefined ? null : decodeCursor(input.cursor);
  if (seq !== null) where.push(lt(auditEvents.seq, seq));
  return where;
}

export async function listAuditEvents({ ctx, input }: { ctx: { db: Db }; input: ListAuditInput }) {
  const limit = input.limit ?? DEFAULT_AUDIT_LIMIT;
  // One row more than the page tells whether another page follows.
  const rows = await ctx.db
    .select()
    .from(auditEvents)
    .where(and(...filters({ ctx, input })))
    .orderBy(desc(auditEvents.seq))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    events: page.map(toAuditEvent),
    nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!.seq) : null,
  };
}
