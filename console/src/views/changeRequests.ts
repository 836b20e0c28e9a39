// Four-eyes approval (docs/api.md#four-eyes-approval): the words the console uses for a change request, and
// what changed between the impact a request was made with and the impact now.
import { TRPCClientError } from "@trpc/client";
import type { RouterOutputs } from "../api.js";

export type ChangeRequest = RouterOutputs["restriction"]["getChangeRequest"]["changeRequest"];
/** A request's preview (a pro's has no cohort), or a preview now: what an approval would apply. */
export type Impact = NonNullable<ChangeRequest["preview"]>;
export type RequestAction = ChangeRequest["action"];
export type RequestStatus = ChangeRequest["status"];

export const requestPath = (id: string) => `/approvals/${encodeURIComponent(id)}`;

/** "Activation" / "Rollback" / "Admin role": a request's action as a noun. */
export const actionNoun: Record<RequestAction, string> = { activate: "Activation", rollback: "Rollback", "grant-admin": "Admin role" };

type Subject = Pick<ChangeRequest, "cohortId" | "cohortNumber" | "proId" | "userId" | "userEmail">;

/** What a request is about, in words, and the console's page of it (none for a user). */
export function subjectOf(cr: Subject): { label: string; href: string | null } {
  if (cr.cohortId !== null) return { label: `Cohort ${cr.cohortNumber}`, href: `/cohorts/${cr.cohortId}` };
  if (cr.proId !== null) return { label: `Pro ${cr.proId}`, href: `/pros/${encodeURIComponent(cr.proId)}` };
  return { label: `User ${cr.userEmail ?? cr.userId}`, href: null };
}

/** "Activation of cohort 3", "Activation of pro p-1", "Admin role for a@example.com". */
export function describeRequest(cr: Subject & Pick<ChangeRequest, "action">): string {
  if (cr.action === "grant-admin") return `Admin role for ${cr.userEmail ?? cr.userId}`;
  const { label } = subjectOf(cr);
  return `${actionNoun[cr.action]} of ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
}

/** What an approval does, as the approve button says it. */
export const approveLabel = (cr: Subject & Pick<ChangeRequest, "action">) =>
  cr.action === "grant-admin"
    ? "Approve and grant the admin role"
    : cr.action === "rollback"
      ? "Approve and roll back"
      : cr.proId !== null
        ? "Approve and switch on"
        : "Approve and activate";

/** Each status as a word, a colour (the word alone carries the meaning) and what it means. */
export const requestStatuses: Record<RequestStatus, { label: string; badge: string; meaning: string }> = {
  pending: { label: "Pending", badge: "badge-pending", meaning: "waiting for a second admin" },
  applied: { label: "Applied", badge: "badge-active", meaning: "approved and applied" },
  stale: { label: "Stale", badge: "badge-warn", meaning: "the impact changed before approval: nothing was applied" },
  rejected: { label: "Rejected", badge: "badge-fail", meaning: "a second admin rejected it" },
  cancelled: { label: "Cancelled", badge: "badge-off", meaning: "its requester withdrew it" },
  expired: { label: "Expired", badge: "badge-off", meaning: "nobody decided within 72 hours" },
};

/** The service's answer to an activation while approvals are required (409). */
export const needsApproval = (error: unknown) =>
  error instanceof TRPCClientError && error.data?.code === "CONFLICT" && /^Approval required/.test(error.message);

export type Difference = { sign: "+" | "−"; proId: string; text: string };

const minus = (a: readonly string[], b: readonly string[]) => {
  const other = new Set(b);
  return a.filter((id) => !other.has(id));
};

/**
 * The pros that moved in or out of "Turn on" and "Turn off" since the request: what makes an approval stale.
 * A cohort's pros never change, so a pro leaves a list because its flag already is what the action would set,
 * and joins one because someone switched it back since.
 */
export function differences(requested: Impact, now: Impact): Difference[] {
  const list = (bucket: "turnOn" | "turnOff", on: boolean): Difference[] => [
    ...minus(requested[bucket], now[bucket]).map((proId) => ({
      sign: "−" as const,
      proId,
      text: `no longer turned ${on ? "on" : "off"}: it is ${on ? "on" : "off"} already`,
    })),
    ...minus(now[bucket], requested[bucket]).map((proId) => ({
      sign: "+" as const,
      proId,
      text: `now turned ${on ? "on" : "off"} too: it was switched ${on ? "off" : "on"} since the request`,
    })),
  ];
  return [...list("turnOn", true), ...list("turnOff", false)];
}
