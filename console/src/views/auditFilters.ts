// The audit log's filters as they live in the address (/console/audit?proId=…), named as the API names
// them so a filtered view can be linked to, and as the input of audit.list. The address is read as the
// browser holds it (location.search, still escaped) and decoded once here: wouter's useSearch decodes it
// with decodeURI first, so an id holding `%41` came back as `A`.
import { auditActions, auditTargetTypes } from "../../../db/schema/audit-actions.js";
import type { RouterInputs } from "../api.js";

export type AuditFilters = {
  action: string;
  targetType: string;
  targetId: string;
  proId: string;
  /** One field for the actor: an email address (it has an `@`) or a user id. */
  actor: string;
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

/** The address's parameters, in the order they are written. */
const plainKeys = ["action", "targetType", "targetId", "proId"] as const;

/** An actor with an `@` is an email address, anything else a user id (user ids never hold one). */
const actorParam = (actor: string) => (actor.includes("@") ? "actorEmail" : "actorId");

export function filtersFromSearch(search: string): AuditFilters {
  const params = new URLSearchParams(search);
  const value = (key: string) => params.get(key) ?? "";
  return {
    action: value("action"),
    targetType: value("targetType"),
    targetId: value("targetId"),
    proId: value("proId"),
    actor: value("actorEmail") || value("actorId"),
    since: value("since"),
    until: value("until"),
  };
}

/** The query string of these filters (without `?`), empty ones left out. */
export function filtersToSearch(filters: AuditFilters): string {
  const params = new URLSearchParams();
  for (const key of plainKeys) if (filters[key].trim()) params.set(key, filters[key].trim());
  const actor = filters.actor.trim();
  if (actor) params.set(actorParam(actor), actor);
  for (const key of ["since", "until"] as const) if (filters[key].trim()) params.set(key, filters[key].trim());
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
  const actor = filters.actor.trim() || undefined;
  return {
    action: isAction(filters.action) ? filters.action : undefined,
    targetType: isTargetType(filters.targetType) ? filters.targetType : undefined,
    targetId: filters.targetId.trim() || undefined,
    proId: filters.proId.trim() || undefined,
    actorId: actor && actorParam(actor) === "actorId" ? actor : undefined,
    actorEmail: actor && actorParam(actor) === "actorEmail" ? actor : undefined,
    since: toIso(filters.since),
    until: toIso(filters.until),
    limit: 50,
  };
}
