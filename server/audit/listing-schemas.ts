// Inputs of the audit procedures: the filters of GET /api/admin/audit (docs/api.md#audit-trail).
import { z } from "zod";
import { auditActions, auditTargetTypes } from "../../db/schema/audit-actions.js";
import { storableText } from "../http/text.js";
import { decodeCursor } from "./listing-cursor.js";

const id = (what: string, example: string) =>
  storableText()
    .min(1)
    .max(200, "must be at most 200 characters")
    .optional()
    .meta({ description: what, examples: [example] });
/**
 * The instants a filter may name, in UTC. The ISO check lets year 0000 through, which PostgreSQL (no year 0)
 * refused with a 500 (issue X); past 9999 a Date no longer prints as the four-digit year it stores.
 */
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");
const instant = (what: string) =>
  z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 date-time, e.g. 2026-11-21T10:00:00Z" })
    .refine((s) => {
      const at = Date.parse(s);
      // Not a date-time at all: the check above says so, once.
      return Number.isNaN(at) || (at >= EARLIEST && at <= LATEST);
    }, "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z")
    .optional()
    .meta({ description: what, examples: ["2026-11-21T10:00:00.000Z"] });

export const DEFAULT_AUDIT_LIMIT = 50;
export const MAX_AUDIT_LIMIT = 200;

export const listAuditInput = z
  .object({
    action: z
      .enum(auditActions)
      .optional()
      .meta({ description: "Only events of this action", examples: ["cohort.activate"] }),
    targetType: z
      .enum(auditTargetTypes)
      .optional()
      .meta({ description: "Only events about this kind of record", examples: ["cohort"] }),
    targetId: id("Only events about the record with this id (a cohort id, pro id or user id)", "pro-0001"),
    actorId: id(
      "Only events made by the user with this id, as themselves or, for an admin, under an impersonation session (impersonatedBy)",
      "8fJ3kQ2mVx",
    ),
    actorEmail: storableText()
      .min(1)
      .max(320, "must be at most 320 characters")
      .optional()
      .meta({
        description:
          "Only events made by the user with this email address (any case), as themselves or, for an admin, under an impersonation session; the address the event recorded, so a changed or deleted account's events are found by their address then",
        examples: ["olivia@example.com"],
      }),
    proId: id(
      "Only events that concern this pro: those about the pro itself (pro.activate, pro.rollback) and the cohort activations and rollbacks that switched its flag",
      "pro-0001",
    ),
    since: instant("Only events at or after this instant"),
    until: instant("Only events at or before this instant"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_AUDIT_LIMIT)
      .optional()
      .meta({ description: `Events per page, 1 to ${MAX_AUDIT_LIMIT} (default ${DEFAULT_AUDIT_LIMIT})`, examples: [50] }),
    cursor: z
      .string()
      .max(100)
      .refine((cursor) => decodeCursor(cursor) !== null, "is not a cursor from this log")
      .optional()
      .meta({ description: "The nextCursor of the previous page; omitted for the newest events", examples: ["c2VxOjQy"] }),
  })
  .default({});

export type ListAuditInput = z.infer<typeof listAuditInput>;

const actor = z.object({ id: z.string().describe("The user's id"), email: z.string().describe("The user's email address") });

/** One event as the log shows it (docs/api.md#audit-trail). */
export const auditEventOutput = z
  .object({
    id: z.string().describe("The event's id (a UUID)"),
    at: z.date().describe("When the change was made (ISO 8601 date-time, UTC)"),
    actor: actor.describe("Who made the change: the user of the session that carried it (under impersonation, the impersonated user)"),
    action: z.enum(auditActions).describe("What was done"),
    target: z
      .object({ type: z.enum(auditTargetTypes), id: z.string() })
      .describe("The record changed: a cohort (its id), a pro (its id) or a user (their id)"),
    before: z.unknown().describe("The record before the change; null where there was none"),
    after: z.unknown().describe("The record after the change; null where there is none"),
    reason: z.string().nullable().describe("The reason given (a rollback's); null when none"),
    requestId: z.string().nullable().describe("The x-request-id of the request that made the change; null when made outside a request"),
    impersonatedBy: actor
      .nullable()
      .describe(
        "The admin behind the change when it was made with an impersonation session (better-auth's admin plugin), the actor then being the impersonated user; null when the actor acted as themselves, as in user.impersonate and user.stop_impersonating, whose actor is the admin",
      ),
    details: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        "What else the change came with: {approvalBypassed: true} on a rollback made without a change request while approvals are required; {changeRequestId, requestedBy} on a change an approval applied; null otherwise",
      ),
  })
  .meta({ id: "AuditEvent", description: "One admin change, as the audit log records it" });

export const listAuditOutput = z
  .object({
    events: z.array(auditEventOutput),
    nextCursor: z.string().nullable().describe("The cursor of the next, older page; null on the last page"),
  })
  .meta({ id: "AuditPage", description: "One page of the audit log, newest first" });
