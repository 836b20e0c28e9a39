// The Users view's rules in words (docs/api.md#accounts, #who-can-do-what-while-approvals-are-required):
// which acts a row offers, what each confirmation says will really happen in the service's mode, and what
// the answer means. Pure: test/unit/console-users.test.ts.
import { plural } from "./format.js";

export type Approvals = "off" | "required";
export type ListedUser = {
  id: string;
  name: string;
  email: string;
  role?: string | null;
  banned?: boolean | null;
  banReason?: string | null;
  banExpires?: string | Date | null;
};

/** A role is user or admin, nothing else (the users table's check, server/accounts/rules.ts). */
export const isAdminRole = (role: string | null | undefined): boolean => role === "admin";

/** "Alice <alice@example.com>", or the address alone. */
export const nameOf = (user: Pick<ListedUser, "name" | "email">) => (user.name ? `${user.name} <${user.email}>` : user.email);

/**
 * What the role button of a row does: grant at once (approvals off), ask for a second admin's approval
 * (required), take the role back (always at once), or nothing while a grant request waits.
 */
export type RoleAct = "grant" | "request" | "revoke" | "pending";

export function roleActOf(user: Pick<ListedUser, "role">, approvals: Approvals | undefined, pendingRequest: boolean): RoleAct {
  if (isAdminRole(user.role)) return "revoke";
  if (pendingRequest) return "pending";
  return approvals === "required" ? "request" : "grant";
}

/** A row's acts: an admin neither bans nor ends the sessions of their own account here (Sign out does the latter). */
export function actsOf(user: ListedUser, me: string | undefined) {
  const self = user.id === me;
  return { ban: !self && !user.banned, unban: Boolean(user.banned), endSessions: !self };
}

export type Confirmation = { title: string; lead: string; confirmLabel: string; tone: "primary" | "danger" };

/**
 * The role dialog: it leads with what confirming really does. `approvals` undefined means the mode could not
 * be read; the dialog says both outcomes then.
 */
export function roleConfirmation(
  act: Exclude<RoleAct, "pending">,
  user: ListedUser,
  { self, approvals }: { self: boolean; approvals: Approvals | undefined },
): Confirmation {
  const who = nameOf(user);
  if (act === "request")
    return {
      title: `Request admin for ${who}?`,
      lead: `Request admin for ${who} — a second admin must approve. Their role stays user until then; the request waits in Pending approvals.`,
      confirmLabel: "Request admin role",
      tone: "primary",
    };
  if (act === "grant")
    return {
      title: `Make ${who} an admin?`,
      lead:
        approvals === "off"
          ? `Make ${who} an admin: at once, with every view of this console, cohort activation and user management.`
          : `Make ${who} an admin. If the service requires approvals, this becomes a request a second admin must approve.`,
      confirmLabel: "Make admin",
      tone: "primary",
    };
  const back =
    approvals === "required"
      ? "Giving the role back will need a request and a second admin's approval."
      : "Another admin can give the role back at once.";
  return self
    ? {
        title: "Revoke your own admin role?",
        lead: `You stop being an admin at once, no approval needed, and this console closes to you. ${back}`,
        confirmLabel: "Revoke my admin role",
        tone: "danger",
      }
    : {
        title: `Revoke admin for ${who}?`,
        lead: `${who} stops being an admin at once: no approval is needed to take the role back. ${back}`,
        confirmLabel: "Revoke admin",
        tone: "danger",
      };
}

/** How long a ban lasts: better-auth's banExpiresIn, in seconds; null until unbanned. */
export const BAN_DURATIONS = [
  { value: "", label: "Until unbanned", days: null },
  { value: "1", label: "1 day", days: 1 },
  { value: "7", label: "7 days", days: 7 },
  { value: "30", label: "30 days", days: 30 },
  { value: "365", label: "1 year", days: 365 },
] as const;

export function banConfirmation(user: ListedUser, durationLabel: string): Confirmation {
  const who = nameOf(user);
  const until = durationLabel === BAN_DURATIONS[0].label ? "until an admin unbans them" : `for ${durationLabel}`;
  return {
    title: `Ban ${who}?`,
    lead: `Ban ${who} ${until}: every session of theirs ends now and sign-in is refused.`,
    confirmLabel: "Ban",
    tone: "danger",
  };
}

export const unbanConfirmation = (user: ListedUser): Confirmation => ({
  title: `Unban ${nameOf(user)}?`,
  lead: `${nameOf(user)} can sign in again at once.`,
  confirmLabel: "Unban",
  tone: "primary",
});

export const endSessionsConfirmation = (user: ListedUser): Confirmation => ({
  title: `End every session of ${nameOf(user)}?`,
  lead: `${nameOf(user)} is signed out on every device now. The account stays open: they may sign in again.`,
  confirmLabel: "End sessions",
  tone: "danger",
});

/** The create form's admin choice, as it will really happen. */
export const createAdminHint = (approvals: Approvals | undefined) =>
  approvals === "required"
    ? "The account is made as a user, and admin is requested: a second admin must approve."
    : approvals === "off"
      ? "The account is an admin at once."
      : "The account is an admin at once, or, if the service requires approvals, once a second admin approves.";

/** A ban as the list shows it: whether it still holds, why, and until when. */
export function banState(user: ListedUser, now: number): { label: string; badge: string; detail: string | null } {
  if (!user.banned) return { label: "Active", badge: "badge-active", detail: null };
  const expires = user.banExpires ? new Date(user.banExpires) : null;
  // better-auth lifts an expired ban at the user's next sign-in, not before.
  if (expires && expires.getTime() <= now) return { label: "Ban over", badge: "badge-off", detail: "lifted when they next sign in" };
  return { label: "Banned", badge: "badge-fail", detail: user.banReason?.trim() || null };
}

/** "Users 21–40 of 45", "3 users", "No user's email contains “x”." */
export function pageSummary(shown: number, offset: number, total: number, search: { text: string }): string {
  if (total === 0 || shown === 0)
    return search.text ? `No user's email address or name contains “${search.text}”.` : "There are no users yet.";
  if (offset === 0 && shown === total) return `${plural(total, "user")}${search.text ? " found" : ""}.`;
  return `Users ${offset + 1}–${offset + shown} of ${total}.`;
}

export type CreateDraft = { name: string; email: string; password: string; admin: boolean };
/** better-auth's bounds for a password (sign-up refuses fewer than 8; create-user more than 128). */
export const PASSWORD_LENGTH = { min: 8, max: 128 } as const;

/** What is wrong with each field of the create form, in words; undefined when it is fine. */
export function createProblems(draft: CreateDraft): Partial<Record<"name" | "email" | "password", string>> {
  const email = draft.email.trim();
  return {
    name: draft.name.trim() ? undefined : "Enter the person's name.",
    email: !email ? "Enter an email address." : /^[^\s@]+@[^\s@]+$/.test(email) ? undefined : "Enter an address like name@example.com.",
    password:
      draft.password.length < PASSWORD_LENGTH.min
        ? `At least ${PASSWORD_LENGTH.min} characters.`
        : draft.password.length > PASSWORD_LENGTH.max
          ? `At most ${PASSWORD_LENGTH.max} characters.`
          : undefined,
  };
}

/** A refused act in words (summary), with the service's own text (detail); null: the service's text says it. */
export function refusalOf(
  act: "grant" | "request" | "revoke" | "ban" | "unban" | "sessions",
  user: Pick<ListedUser, "name" | "email">,
  refusal: { status: number; message: string },
): { summary: string; detail: string } | null {
  const who = nameOf(user);
  const detail = refusal.message;
  if (refusal.status === 409 && act === "request")
    return { summary: `A request for ${who}'s admin role already waits for a second admin: see Pending approvals.`, detail };
  if (refusal.status === 404) return { summary: `${who} no longer exists: the account was removed meanwhile.`, detail };
  if (refusal.status === 401) return { summary: "Your session has ended: sign in again.", detail };
  if (refusal.status === 403) return { summary: "Refused: this takes a platform admin, and this account is not one now.", detail };
  return null;
}
