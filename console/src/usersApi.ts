// Accounts through the service's own surface under /api/admin/users (docs/api.md#accounts): same origin, the
// session cookie; the browser's Origin makes the writes trusted. Every act is audited by the service; with
// APPROVALS=required an admin grant answers 202 and a change request instead (server/accounts/).
import { AuthRequestError } from "./session.js";
import type { ListedUser } from "./userRules.js";

export type AdminUser = ListedUser & { createdAt: string };
export type UserSearch = { text: string; offset: number };
export type UserPage = { users: AdminUser[]; total: number };
/** A grant-admin request as the 202 carries it (the fields the console shows). */
export type GrantRequest = { id: string; userEmail: string | null; status: string };

/** Users on one page of the list. */
export const USERS_PAGE_SIZE = 20;

/** A call to /api/admin/users…: the envelope's data, or AuthRequestError with the service's sentence. */
async function accounts<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<{ status: number; data: T }> {
  const res = await fetch(`/api/admin${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await res.json().catch(() => null)) as { data?: T; error?: { message?: string } } | null;
  if (!res.ok) throw new AuthRequestError(envelope?.error?.message ?? `The service answered ${res.status}`, res.status);
  return { status: res.status, data: envelope?.data as T };
}

/** A page of users whose e-mail address or name contains the text (any case), by e-mail. */
export async function listUsers(search: UserSearch, limit = USERS_PAGE_SIZE): Promise<UserPage> {
  const query = new URLSearchParams({ limit: String(limit), offset: String(search.offset) });
  if (search.text.trim()) query.set("search", search.text.trim());
  return (await accounts<UserPage>("GET", `/users?${query}`)).data;
}

/** 201: the account as made; 202: made as a user, and the admin role asked for (approvals required). */
export async function createUser(input: { name: string; email: string; password: string; admin: boolean }) {
  const body = { name: input.name, email: input.email, password: input.password, ...(input.admin ? { role: "admin" } : {}) };
  return (await accounts<{ user: AdminUser; changeRequest?: GrantRequest }>("POST", "/users", body)).data;
}

export type RoleAnswer = { changed: AdminUser } | { requested: GrantRequest };

export async function setRole(userId: string, role: "admin" | "user"): Promise<RoleAnswer> {
  const { data } = await accounts<{ user: AdminUser; changeRequest?: GrantRequest }>("POST", `/users/${encodeURIComponent(userId)}/role`, {
    role,
  });
  return data.changeRequest ? { requested: data.changeRequest } : { changed: data.user };
}

export async function banUser(userId: string, reason: string, expiresInDays: number | null): Promise<AdminUser> {
  const body = { reason: reason.trim(), ...(expiresInDays ? { expiresInDays } : {}) };
  return (await accounts<{ user: AdminUser }>("POST", `/users/${encodeURIComponent(userId)}/ban`, body)).data.user;
}

export async function unbanUser(userId: string): Promise<AdminUser> {
  return (await accounts<{ user: AdminUser }>("POST", `/users/${encodeURIComponent(userId)}/unban`)).data.user;
}

export async function endSessions(userId: string): Promise<void> {
  await accounts("POST", `/users/${encodeURIComponent(userId)}/revoke-sessions`);
}
