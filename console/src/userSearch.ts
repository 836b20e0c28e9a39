// Users found by part of their e-mail address or name (GET /api/admin/users, platform admins only, same
// origin with the session cookie): the console's way to a user id without pasting one.
import { listUsers } from "./usersApi.js";

export type FoundUser = { id: string; name: string; email: string; role?: string | null; banned?: boolean | null };
export type UserSearchAnswer = { users: FoundUser[]; total: number };

/** Users shown at once: enough to pick from, fewer than a screen. */
export const USER_SEARCH_LIMIT = 10;

/** Users whose e-mail address or name contains `text` (any case), by e-mail; an empty text lists the first users. */
export async function findUsersByEmail(text: string, limit = USER_SEARCH_LIMIT): Promise<UserSearchAnswer> {
  return listUsers({ text, offset: 0 }, limit);
}

/** "Alice Example <alice@example.com>": how a user reads on screen. */
export const userLabel = (user: { name: string; email: string }) => (user.name ? `${user.name} <${user.email}>` : user.email);
