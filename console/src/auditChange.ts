// An audit event in words (issue Q.5): its action, what changed between the record before and after, and
// what the change came with. Pure: no React, no I/O; the shapes are those of docs/api.md#audit-trail.
import type { AuditAction, AuditTargetType } from "../../db/schema/audit-actions.js";
import { formatDate, plural } from "./format.js";
import { explainBlocker } from "./gates.js";

/** The fields of an audit event the words are made of. */
export type AuditEventShape = {
  action: string;
  target: { type: string; id: string };
  before: unknown;
  after: unknown;
  details?: Record<string, unknown> | null;
};

export type ChangeOptions = {
  /** An instant (ISO string) as the reader reads it; the console's own format by default. */
  formatTime?: (iso: string) => string;
  /** A cohort's number when it is known, to name it "cohort 7" instead of by its id. */
  cohortNumber?: (cohortId: string) => number | undefined;
};

export const ACTION_WORDS: Record<AuditAction, string> = {
  "cohort.create": "Cohort created",
  "cohort.check_gates": "Gates checked",
  "cohort.activate": "Cohort activated",
  "cohort.rollback": "Cohort rolled back",
  "pro.activate": "Pro restricted",
  "pro.rollback": "Pro's restriction lifted",
  "notification.test_in_app": "Test notification sent",
  "notification.test_push": "Test push sent",
  "subscriptions.clear": "Own push subscriptions cleared",
  "admin.bootstrap": "First admin created",
  "user.create": "User created",
  "user.update": "User updated",
  "user.set_role": "Role changed",
  "user.ban": "User banned",
  "user.unban": "User unbanned",
  "user.set_password": "Password set",
  "user.revoke_sessions": "Sessions revoked",
  "user.remove": "User removed",
  "user.impersonate": "Impersonation started",
  "user.stop_impersonating": "Impersonation ended",
  "apikey.create": "API key created",
  "apikey.revoke": "API key revoked",
  "change_request.create": "Change requested",
  "change_request.approve": "Change request approved",
  "change_request.reject": "Change request rejected",
  "change_request.cancel": "Change request cancelled",
};

export const TARGET_TYPE_WORDS: Record<AuditTargetType, string> = {
  cohort: "cohort",
  pro: "pro",
  user: "user",
  apikey: "API key",
  change_request: "change request",
};

/** An action in words; an action this console does not know yet reads as its code. */
export const actionWords = (action: string): string => (ACTION_WORDS as Record<string, string>)[action] ?? action;

type Rec = Record<string, unknown>;
const isRecord = (value: unknown): value is Rec => typeof value === "object" && value !== null && !Array.isArray(value);
const recordOf = (value: unknown): Rec => (isRecord(value) ? value : {});
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** An instant as the API writes it in a record (Date#toJSON). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const MAX_TEXT = 48;
const MAX_IDS = 3;

const shorten = (text: string, max = MAX_TEXT) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The first ids and "…" when there are more: `pro-1, pro-2, pro-3, …`. */
const someIds = (ids: readonly unknown[]) =>
  ids
    .slice(0, MAX_IDS)
    .map(String)
    .concat(ids.length > MAX_IDS ? ["…"] : [])
    .join(", ");

/** A field name as words: `rollbackReason` → `rollback reason`, unless it has its own words. */
const FIELD_WORDS: Record<string, string> = {
  activatedAt: "activated",
  rollbackAt: "rolled back",
  createdAt: "created",
  updatedAt: "updated",
  proIds: "pros",
  cohortNumber: "number",
  restrictionActive: "restriction",
  banExpires: "ban expires",
  expiresAt: "expires",
  revokedAt: "revoked",
  lastUsedAt: "last used",
  decidedAt: "decided",
  appliedAt: "applied",
  requestedAt: "requested",
  decidedBy: "decided by",
  requestedBy: "requested by",
};
const fieldWords = (key: string) => FIELD_WORDS[key] ?? key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();

/** Values whose words are not their text: a cohort's or request's status, a flag. */
const VALUE_WORDS: Record<string, (value: unknown) => string | undefined> = {
  status: (value) => str(value)?.replace(/_/g, " "),
  restrictionActive: (value) => (typeof value === "boolean" ? (value ? "on" : "off") : undefined),
};

function makeShow(formatTime: (iso: string) => string) {
  return function show(value: unknown, key?: string): string {
    const own = key ? VALUE_WORDS[key]?.(value) : undefined;
    if (own !== undefined) return own;
    if (value === null || value === undefined || value === "") return "—";
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "number") return String(value);
    if (typeof value === "string") return ISO_INSTANT.test(value) ? formatTime(value) : shorten(value);
    if (Array.isArray(value)) {
      if (value.length === 0) return "none";
      return value.every((v) => typeof v === "string" || typeof v === "number")
        ? `${plural(value.length, "item")} (${someIds(value)})`
        : plural(value.length, "item");
    }
    if (isRecord(value) && typeof value.email === "string") return value.email;
    return shorten(JSON.stringify(value));
  };
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Each top-level field whose value differs, `field: old → new`; the record's id is its own. */
function fieldChanges(before: unknown, after: unknown, show: ReturnType<typeof makeShow>, skip: readonly string[] = []): string[] {
  const was = recordOf(before);
  const now = recordOf(after);
  const keys = [...new Set([...Object.keys(now), ...Object.keys(was)])].filter((key) => key !== "id" && !skip.includes(key));
  return keys
    .filter((key) => !same(was[key], now[key]))
    .map((key) => `${fieldWords(key)}: ${show(was[key], key)} → ${show(now[key], key)}`);
}

type Describe = (before: Rec, after: Rec, ctx: { show: ReturnType<typeof makeShow>; cohort: (id: unknown) => string }) => string[];

const cohortCreated: Describe = (_before, after) => {
  const ids = Array.isArray(after.proIds) ? after.proIds : [];
  return [`created with ${plural(ids.length, "pro")}${ids.length ? ` (${someIds(ids)})` : ""}`];
};

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The gate check's inputs and what they decided; a blocked check says why in words (gates.ts). */
const gatesChecked: Describe = (_before, after, { show }) => {
  const inputs = [
    `response rate ${show(after.responseRate)}`,
    `comparisons ${show(after.comparisonsDone)}`,
    `communication log live ${show(after.logLive)}`,
    `legal sign-off ${show(after.legalSignoff)}`,
  ].join(", ");
  const outcome =
    after.allGatesMet === true
      ? "all gates met"
      : `blocked: ${lowerFirst(explainBlocker(str(after.blockedBy) ?? "a gate is not met").summary)}`;
  return [`${inputs} → ${outcome}`];
};

/** A pro's stored status: none before its first change reads as off. */
const proFlagSet: Describe = (before, after, { cohort }) => {
  const onOff = (status: Rec) => (status.restrictionActive === true ? "on" : "off");
  const lines = [`restriction: ${onOff(before)} → ${onOff(after)}`];
  if (str(before.cohortId)) lines.push(`was set by ${cohort(before.cohortId)}, now per pro`);
  return lines;
};

const userIdentity = (user: Rec) => {
  const email = str(user.email) ?? "a user";
  const name = str(user.name);
  return name ? `${email} (${shorten(name, 40)})` : email;
};

/**
 * A change request's subject, `activate cohort 7` (its record carries the cohort's number), `activate pro
 * p-1`, or `grant the admin role to a@example.com`.
 */
const requestSubject = (request: Rec, cohort: (id: unknown) => string) => {
  if (request.action === "grant-admin") return `grant the admin role to ${str(request.userEmail) ?? str(request.userId) ?? "a user"}`;
  if (str(request.proId)) return `${str(request.action) ?? "change"} pro ${request.proId}`;
  const number = num(request.cohortNumber);
  return `${str(request.action) ?? "change"} ${number !== undefined ? `cohort ${number}` : cohort(request.cohortId)}`;
};

const requestDecided: Describe = (before, after, { show, cohort }) => [
  requestSubject(after, cohort),
  `status: ${show(before.status, "status")} → ${show(after.status, "status")}`,
];

const DESCRIBE: Partial<Record<AuditAction, Describe>> = {
  "cohort.create": cohortCreated,
  "cohort.check_gates": gatesChecked,
  "pro.activate": proFlagSet,
  "pro.rollback": proFlagSet,
  "notification.test_in_app": (_b, after) => [
    `in-app notification "${shorten(str(after.title) ?? "", 60)}"${str(after.eventType) ? ` (type ${after.eventType})` : ""}`,
  ],
  "notification.test_push": (_b, after) => {
    const sent = num(after.sent) ?? 0;
    const failed = num(after.failed) ?? 0;
    const gone = num(after.deactivated) ?? 0;
    const line = `${sent} sent, ${failed} failed`;
    if (sent + failed === 0) return [`${line}: no active push subscription`];
    return [gone ? `${line}; ${plural(gone, "subscription")} gone, now inactive` : line];
  },
  "subscriptions.clear": (before) => {
    const ids = Array.isArray(before.activeSubscriptionIds) ? before.activeSubscriptionIds : [];
    return [`${plural(ids.length, "active push subscription")} cleared`];
  },
  "admin.bootstrap": (_b, after) => [`first admin: ${userIdentity(after)}`],
  "user.create": (_b, after, { show }) => [`${userIdentity(after)}, role ${show(after.role)}`],
  "user.set_password": () => ["password set (never recorded)"],
  "user.revoke_sessions": (before) => [`${plural(Array.isArray(before.sessionIds) ? before.sessionIds.length : 0, "session")} revoked`],
  "user.remove": (before) => [`removed ${userIdentity(before)}`],
  "user.impersonate": (_b, after, { show }) => [`impersonation session until ${show(after.expiresAt)}`],
  "user.stop_impersonating": () => ["impersonation session ended"],
  "apikey.create": (_b, after, { show }) => {
    const scopes = Array.isArray(after.scopes) ? after.scopes.map(String).join(", ") : "none";
    return [
      `"${shorten(str(after.name) ?? "", 60)}", scopes ${scopes || "none"}`,
      `expires ${after.expiresAt ? show(after.expiresAt) : "never"}`,
    ];
  },
  "apikey.revoke": (before, after, { show }) => [
    `"${shorten(str(after.name) ?? str(before.name) ?? "", 60)}" revoked ${show(after.revokedAt)}`,
  ],
  "change_request.create": (_b, after, { cohort }) => {
    if (after.preview === null || after.preview === undefined) return [`asks to ${requestSubject(after, cohort)}`];
    const preview = recordOf(after.preview);
    const count = (key: string) => (Array.isArray(preview[key]) ? (preview[key] as unknown[]).length : 0);
    return [
      `asks to ${requestSubject(after, cohort)}`,
      `impact then: ${count("turnOn")} on, ${count("turnOff")} off, ${count("unchanged")} unchanged`,
    ];
  },
  "change_request.approve": requestDecided,
  "change_request.reject": requestDecided,
  "change_request.cancel": requestDecided,
};

/** Changes that are their records' field changes, but for fields that say nothing new. */
const SKIP_FIELDS: Partial<Record<AuditAction, readonly string[]>> = {
  // The cohort's pros and number are the same before and after; the reason has its own column.
  "cohort.rollback": ["rollbackReason"],
};

/**
 * What an event changed, as a few short lines an operator reads: per action where the record's shape is
 * known (docs/api.md#audit-trail), otherwise each top-level field that differs, `field: old → new`.
 */
export function describeChange(event: Pick<AuditEventShape, "action" | "before" | "after">, options: ChangeOptions = {}): string[] {
  const show = makeShow(options.formatTime ?? formatDate);
  const cohort = (id: unknown) => {
    const number = typeof id === "string" ? options.cohortNumber?.(id) : undefined;
    return number !== undefined ? `cohort ${number}` : typeof id === "string" ? `cohort ${shorten(id, 40)}` : "a cohort";
  };
  const describe = (DESCRIBE as Record<string, Describe | undefined>)[event.action];
  if (describe) return describe(recordOf(event.before), recordOf(event.after), { show, cohort });
  const skip = (SKIP_FIELDS as Record<string, readonly string[] | undefined>)[event.action];
  return fieldChanges(event.before, event.after, show, skip);
}

/** What the change came with (audit_events.details), in words. */
export function describeDetails(details: Record<string, unknown> | null | undefined): string[] {
  if (!details) return [];
  const lines: string[] = [];
  const rest = { ...details };
  if (typeof rest.changeRequestId === "string") {
    const by = isRecord(rest.requestedBy) ? str(rest.requestedBy.email) : undefined;
    lines.push(`applied by approving change request ${rest.changeRequestId.slice(0, 8)}${by ? `, requested by ${by}` : ""}`);
    delete rest.changeRequestId;
    delete rest.requestedBy;
  }
  if (rest.approvalBypassed === true) {
    lines.push("made without a change request while approvals are required");
    delete rest.approvalBypassed;
  }
  const show = makeShow(formatDate);
  for (const [key, value] of Object.entries(rest)) lines.push(`${fieldWords(key)}: ${show(value)}`);
  return lines;
}

/** The change request an event was applied by, when an approval applied it. */
export const appliedByRequest = (details: Record<string, unknown> | null | undefined): string | undefined =>
  typeof details?.changeRequestId === "string" ? details.changeRequestId : undefined;

/**
 * The cohorts' numbers the events themselves carry: a cohort event's record (before or after) is the
 * cohort, a change request's names its cohort's id and number.
 */
export function cohortNumbersIn(events: readonly AuditEventShape[]): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const event of events) {
    for (const record of [event.before, event.after]) {
      if (!isRecord(record) || typeof record.cohortNumber !== "number") continue;
      if (event.target.type === "cohort") numbers.set(event.target.id, record.cohortNumber);
      else if (typeof record.cohortId === "string") numbers.set(record.cohortId, record.cohortNumber);
    }
  }
  return numbers;
}

/** Every cohort the events name: their target, or the cohort a record points at (a gate check, a pro's flag). */
export function cohortIdsNamed(events: readonly AuditEventShape[]): string[] {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.target.type === "cohort") ids.add(event.target.id);
    for (const record of [event.before, event.after]) {
      if (isRecord(record) && typeof record.cohortId === "string") ids.add(record.cohortId);
    }
  }
  return [...ids];
}

/** A name for the target when its record carries one: an API key's name, a user's email. */
export function targetName(event: AuditEventShape): string | undefined {
  const record = isRecord(event.after) ? event.after : isRecord(event.before) ? event.before : {};
  if (event.target.type === "apikey") return str(record.name);
  if (event.target.type === "user" && str(record.id) === event.target.id) return str(record.email);
  return undefined;
}
