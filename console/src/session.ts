// Sign-in, sign-out and the current session through better-auth's own endpoints (same origin, cookie).
import { useQuery } from "@tanstack/react-query";
import { queryClient, SESSION_KEY } from "./api.js";

export type SessionUser = { id: string; email: string; name: string; role?: string | null };

/**
 * A refusal of better-auth's endpoints: its message, the HTTP status (401 no session, 403 not allowed) and
 * better-auth's code when it gave one (INVALID_PASSWORD, …), which selfHelp.ts puts in words.
 */
export class AuthRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
    this.name = "AuthRequestError";
  }
}

/** better-auth answers errors as `{message, code}` (or the service's envelope for its own limits). */
async function failure(res: Response): Promise<AuthRequestError> {
  const body = (await res.json().catch(() => null)) as { message?: string; code?: string; error?: { message?: string } } | null;
  return new AuthRequestError(body?.message ?? body?.error?.message ?? `The service answered ${res.status}`, res.status, body?.code);
}

/** A request to better-auth under /api/auth/ (GET without a body, POST with one); throws AuthRequestError. */
export async function authFetch(path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`/api/auth/${path}`, {
    method: body === undefined ? "GET" : "POST",
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await failure(res);
  return res;
}

async function fetchSession(): Promise<SessionUser | null> {
  const res = await authFetch("get-session");
  const data = (await res.json()) as { user: SessionUser } | null;
  return data?.user ?? null;
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000 });
}

export async function signIn(email: string, password: string): Promise<void> {
  const res = await authFetch("sign-in/email", { email, password });
  const { user } = (await res.json()) as { user: SessionUser };
  queryClient.setQueryData(SESSION_KEY, user);
}

export async function signOut(): Promise<void> {
  await authFetch("sign-out", {});
  // The session query is watched by the frame (it shows the sign-in form); everything else was the
  // previous user's and goes.
  queryClient.setQueryData(SESSION_KEY, null);
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== SESSION_KEY[0] });
}

/**
 * A new password for the signed-in person. The service ends every other session of theirs whatever the
 * request says (server/auth/better-auth.ts); this one goes on under a new cookie.
 */
export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  await authFetch("change-password", { currentPassword, newPassword, revokeOtherSessions: true });
}

/** Ends every session of the signed-in person but this one. */
export async function revokeOtherSessions(): Promise<void> {
  await authFetch("revoke-other-sessions", {});
}
