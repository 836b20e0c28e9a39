// The audit log's filters as they live in the address (/console/audit?action=…), so a filtered view can
// be linked to, and as the input of audit.list.
import { auditActions, auditTargetTypes } from "../../../db/schema/audit-actions.js";
import type { RouterInputs } from "../api.js";

export type AuditFilters = {
  action: string;
  targetType: string;
  targetId: string;
  actorId: string;
  /** datetime-local values, the reader's local time */
  since: string;
  until: string;
};

type ListInput = Exclude<RouterInputs["audit"]["list"], void | undefined>;
type Action = NonNullable<ListInput["action"]>;
type TargetType = NonNullable<ListInput["targetType"]>;

/** Every action and target type the service records, for the filters' choices: the server's own lists. */
export const ACTIONS = auditActions satisfies readonly Action[];
export const TARGET_TYPES = auditTargetTypes satisfies readonly TargetType[];

const keys = ["action", "targetType", "targetId", "actorId", "since", "until"] as const;

export function filtersFromSearch(search: string): AuditFilters {
  const params = new URLSearchParams(search);
  const value = (key: (typeof keys)[number]) => params.get(key) ?? "";
  return {
    action: value("action"),
    targetType: value("targetType"),
    targetId: value("targetId"),
    actorId: value("actorId"),
    since: value("since"),
    until: value("until"),
  };
}

export function filtersToSearch(filters: AuditFilters): string {
  const params = new URLSearchParams();
  for (const key of keys) if (filters[key].trim()) params.set(key, filters[key].trim());
  return params.toString();
}

const isAction = (value: string): value is Action => (ACTIONS as readonly string[]).includes(value);
const isTargetType = (value: string): value is TargetType => (TARGET_TYPES as readonly string[]).includes(value);

/** A local datetime-local value as the ISO instant the service wants; "" stays absent. */
const toIso = (local: string) => {
  if (!local) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
};

export function toListInput(filters: AuditFilters): Omit<ListInput, "cursor"> {
  return {
    action: isAction(filters.action) ? filters.action : undefined,
    targetType: isTargetType(filters.targetType) ? filters.targetType : undefined,
    targetId: filters.targetId.trim() || undefined,
    actorId: filters.actorId.trim() || undefined,
    since: toIso(filters.since),
    until: toIso(filters.until),
    limit: 50,
  };
}
