// Pure rules of the Account and Preferences views (a person's own password, sessions and notification
// preferences): no I/O, unit-tested on their own (test/unit/self-help.test.ts).
import { PASSWORD_LENGTH } from "./userRules.js";

export type PasswordDraft = { current: string; next: string; confirm: string };

/** What is wrong with each field of the change-password form, in words; undefined when it is fine. */
export function passwordProblems(draft: PasswordDraft): Partial<Record<keyof PasswordDraft, string>> {
  const problems: Partial<Record<keyof PasswordDraft, string>> = {};
  if (!draft.current) problems.current = "Enter your current password.";
  if (draft.next.length < PASSWORD_LENGTH.min) problems.next = `At least ${PASSWORD_LENGTH.min} characters.`;
  else if (draft.next.length > PASSWORD_LENGTH.max) problems.next = `At most ${PASSWORD_LENGTH.max} characters.`;
  else if (draft.next === draft.current) problems.next = "The new password is the same as the current one.";
  if (!problems.next && draft.confirm !== draft.next) problems.confirm = "Does not match the new password.";
  return problems;
}

/**
 * better-auth's refusals of change-password and revoke-other-sessions, in words: its codes are terse
 * ("Invalid password"); anything else keeps the service's own message.
 */
export function authErrorInWords(error: { message: string; status?: number; code?: string }): string {
  switch (error.code) {
    case "INVALID_PASSWORD":
      return "The current password is not right. Your password was not changed.";
    case "PASSWORD_TOO_SHORT":
      return "The new password is too short.";
    case "PASSWORD_TOO_LONG":
      return "The new password is too long.";
    case "CREDENTIAL_ACCOUNT_NOT_FOUND":
      return "This account signs in without a password, so it has none to change.";
  }
  if (error.status === 401) return "Your session has ended: sign in again.";
  return error.message;
}

export type ChannelChoice = { inApp: boolean; push: boolean };
export type PreferenceSet = Record<string, ChannelChoice>;

/**
 * What Save sends (PATCH /api/notifications/preferences): only the categories and channels that differ
 * from what the service holds; empty when nothing changed.
 */
export function preferencesPatch(saved: PreferenceSet, draft: PreferenceSet): Record<string, Partial<ChannelChoice>> {
  const patch: Record<string, Partial<ChannelChoice>> = {};
  for (const [category, choice] of Object.entries(draft)) {
    const before = saved[category];
    const change: Partial<ChannelChoice> = {};
    if (before?.inApp !== choice.inApp) change.inApp = choice.inApp;
    if (before?.push !== choice.push) change.push = choice.push;
    if (Object.keys(change).length) patch[category] = change;
  }
  return patch;
}

/** A category as a heading of its row: "messages" → "Messages". */
export const categoryLabel = (category: string) => category.charAt(0).toUpperCase() + category.slice(1);
