// What an account may be: its roles and the bounds of its fields. A module of constants only, free of any
// import, so the contracts apps type-check against (server/routers/users/schemas.ts) read it without the
// server's modules (test/unit/consumer-footprint.test.ts).

/** A role is user or admin, nothing else (the users table's check). */
export const roleNames = ["user", "admin"] as const;
export type RoleName = (typeof roleNames)[number];

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 128;
/** The longest ban, in days. */
export const MAX_BAN_DAYS = 3650;

/** Who is calling, as a resolved session shows it (server/auth/session.ts). */
export type SessionUser = { id: string; name: string; email: string; role: string };
export type SessionInfo = {
  id: string;
  expiresAt: Date;
  /**
   * An impersonation session (better-auth's admin plugin): the admin who started it, named in the audit
   * events made with it. Null or absent for a session of the user's own.
   */
  impersonatedBy?: { id: string; email: string } | null;
};
export type ResolvedSession = { user: SessionUser; session: SessionInfo } | null;

type Banned = { banned: boolean | null; banExpires: Date | null };

/** Banned now: a ban without an end, or one that has not ended yet. */
export const isBannedNow = (user: Banned, now: number): boolean =>
  Boolean(user.banned) && (user.banExpires === null || user.banExpires.getTime() > now);

/** An admin who can act: the admin role, and not banned now. */
export const isActingAdmin = (user: Banned & { role: string }, now: number): boolean => user.role === "admin" && !isBannedNow(user, now);
