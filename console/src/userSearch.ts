// Users found by part of their email address, through better-auth's admin plugin (GET
// /api/auth/admin/list-users, platform admins only, same origin with the session cookie): the console's way
// to a user id without pasting one.
import { authFetch } from "./session.js";

export type FoundUser = { id: string; name: string; email: string; role?: string | null; banned?: boolean | null };
export type UserSearchAnswer = { users: FoundUser[]; total: number };

/** Users shown at once: enough to pick from, fewer than a screen. */
export const USER_SEARCH_LIMIT = 10;

/**
 * Users whose email contains `text`, by email. better-auth stores addresses in lower case and its "contains"
 * is case-sensitive, so the text is lower-cased first; an empty text lists the first users.
 */
export async function findUsersByEmail(text: string, limit = USER_SEARCH_LIMIT): Promise<UserSearchAnswer> {
  const query = new URLSearchParams({
    searchField: "email",
    searchOperator: "contains",
    limit: String(limit),
    sortBy: "email",
    sortDirection: "asc",
  });
  const value = text.trim().toLowerCase();
  if (value) query.set("searchValue", value);
  const res = await authFetch(`admin/list-users?${query}`);
  const body = (await res.json()) as Partial<UserSearchAnswer>;
  return { users: body.users ?? [], total: body.total ?? 0 };
}

/** "Alice Example <alice@example.com>": how a user reads on screen. */
export const userLabel = (user: { name: string; email: string }) => (user.name ? `${user.name} <${user.email}>` : user.email);
