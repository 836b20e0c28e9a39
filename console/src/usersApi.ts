// Accounts through better-auth's admin plugin under /api/auth/admin/ (same origin, the session cookie; the
// browser's Origin makes the POSTs trusted), as docs/api.md#making-another-admin gives them. Every act is
// audited by the service (server/audit/admin-plugin.ts); with APPROVALS=required an admin grant answers 202
// and a change request instead (server/auth/four-eyes.ts).
import { authFetch } from "./session.js";
import type { ListedUser } from "./userRules.js";

export type AdminUser = ListedUser & { createdAt: string };
export type UserSearch = { text: string; field: "email" | "name"; offset: number };
export type UserPage = { users: AdminUser[]; total: number };
/** A grant-admin request as the 202 carries it (the fields the console shows). */
export type GrantRequest = { id: string; userEmail: string | null; status: string };

/** Users on one page of the list. */
export const USERS_PAGE_SIZE = 20;

/**
 * A page of users whose email or name contains the text, by email. Addresses are stored in lower case and
 * better-auth's "contains" is case-sensitive, so an email search is lower-cased; a name is matched as typed.
 */
export async function listUsers(search: UserSearch): Promise<UserPage> {
  const query = new URLSearchParams({
    searchField: search.field,
    searchOperator: "contains",
    limit: String(USERS_PAGE_SIZE),
    offset: String(search.offset),
    sortBy: "email",
    sortDirection: "asc",
  });
  const value = search.field === "email" ? search.text.trim().toLowerCase() : search.text.trim();
  if (value) query.set("searchValue", value);
  const res = await authFetch(`admin/list-users?${query}`);
  const body = (await res.json()) as Partial<UserPage>;
  return { users: body.users ?? [], total: body.total ?? 0 };
}

/** 200: the account as made; 202: made as a user, and the admin role asked for (approvals required). */
export async function createUser(input: { name: string; email: string; password: string; admin: boolean }) {
  const res = await authFetch("admin/create-user", {
    name: input.name,
    email: input.email,
    password: input.password,
    ...(input.admin ? { role: "admin" } : {}),
  });
  return (await res.json()) as { user: AdminUser; changeRequest?: GrantRequest };
}

export type RoleAnswer = { changed: AdminUser } | { requested: GrantRequest };

export async function setRole(userId: string, role: "admin" | "user"): Promise<RoleAnswer> {
  const res = await authFetch("admin/set-role", { userId, role });
  const body = (await res.json()) as { user?: AdminUser; changeRequest?: GrantRequest };
  return res.status === 202 && body.changeRequest ? { requested: body.changeRequest } : { changed: body.user as AdminUser };
}

export async function banUser(userId: string, banReason: string, banExpiresIn: number | null): Promise<AdminUser> {
  const res = await authFetch("admin/ban-user", {
    userId,
    ...(banReason.trim() ? { banReason: banReason.trim() } : {}),
    ...(banExpiresIn ? { banExpiresIn } : {}),
  });
  return ((await res.json()) as { user: AdminUser }).user;
}

export async function unbanUser(userId: string): Promise<AdminUser> {
  const res = await authFetch("admin/unban-user", { userId });
  return ((await res.json()) as { user: AdminUser }).user;
}

export async function endSessions(userId: string): Promise<void> {
  await authFetch("admin/revoke-user-sessions", { userId });
}
