// Account administration (docs/api.md#accounts): the service's own rules and SQL, behind both doors
// (server/routers/users/). Each act runs in one transaction with its audit event; the target's row is locked
// first, and so are the acting admins' rows whenever an admin could be lost, so "the last admin" is decided
// on locked rows. better-auth still signs people in; these acts write its tables directly, as it does.
import { generateRandomString, hashPassword } from "better-auth/crypto";
import { and, asc, count, eq, ilike, or } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.js";
import { sqlState } from "../../db/errors.js";
import { accounts, users } from "../../db/schema/index.js";
import { type AuditEntry, recordAudit } from "../audit/record.js";
import { AppError, forbidden, notFound } from "../errors/errors.js";
import { type ChangeRequestView, fileChangeRequest } from "../restriction/change-requests.js";
import { type Acting, refuseImpersonation } from "./acting.js";
import { recordPasswordChoice } from "./control.js";
import { identityDigest } from "./identity.js";
import { changeRole, toView, type UserView, userView } from "./role.js";
import { banEnds, isActingAdmin, LAST_ADMIN_MESSAGE, type RoleName, wouldLeaveNoAdmin } from "./rules.js";
import { endImpersonationsBy, endSessionsOf } from "./sessions.js";

/** `%`, `_` and `\` are ordinary characters of a search. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listUsers(db: Db, input: { search?: string; limit: number; offset: number }) {
  const text = input.search?.trim();
  const where = text ? or(ilike(users.email, likePattern(text)), ilike(users.name, likePattern(text))) : undefined;
  const [rows, [total]] = await Promise.all([
    db.select(userView).from(users).where(where).orderBy(asc(users.email)).limit(input.limit).offset(input.offset),
    db.select({ n: count() }).from(users).where(where),
  ]);
  return { users: rows.map(toView), total: total?.n ?? 0 };
}

/** The target, locked for the act; 404 when there is none. */
async function lockedUser(tx: DbOrTx, id: string): Promise<UserView> {
  const [row] = await tx.select(userView).from(users).where(eq(users.id, id)).for("update");
  if (!row) throw notFound("User", id);
  return toView(row);
}

/**
 * 409 when taking the target out of the admins would leave none. The acting admins' rows are locked, so a
 * concurrent demotion of the other one waits and then counts this one's outcome.
 */
async function keepAnAdmin(tx: DbOrTx, target: UserView): Promise<void> {
  const now = Date.now();
  if (!isActingAdmin(target, now)) return;
  const admins = await tx
    .select({ id: users.id, role: users.role, banned: users.banned, banExpires: users.banExpires })
    .from(users)
    .where(eq(users.role, "admin"))
    .for("update");
  const acting = admins.filter((a) => isActingAdmin(a, now)).map((a) => a.id);
  if (wouldLeaveNoAdmin(acting, target.id)) throw new AppError("CONFLICT", LAST_ADMIN_MESSAGE);
}

const audit = (tx: DbOrTx, acting: Acting, entry: Omit<AuditEntry, "target"> & { userId: string }) => {
  const { userId, ...rest } = entry;
  return recordAudit(tx, acting.source, { ...rest, target: { type: "user", id: userId } });
};

/** A grant of the admin role waiting for a second admin, bound to who the target is now. */
async function fileGrant(tx: DbOrTx, acting: Acting, user: UserView): Promise<ChangeRequestView> {
  return fileChangeRequest(tx, acting.source, {
    target: { userId: user.id, userEmail: user.email, action: "grant-admin" },
    reason: null,
    preview: null,
    targetIdentity: await identityDigest(tx, user.id),
  });
}

/** Stores the password hash as better-auth's credential account, making one when the user has none. */
async function storePasswordHash(tx: DbOrTx, userId: string, hash: string): Promise<void> {
  const updated = await tx
    .update(accounts)
    .set({ password: hash, updatedAt: new Date() })
    .where(and(eq(accounts.userId, userId), eq(accounts.providerId, "credential")))
    .returning({ id: accounts.id });
  if (!updated.length) {
    await tx.insert(accounts).values({ id: generateId(), accountId: userId, providerId: "credential", userId, password: hash });
  }
}

/** better-auth's id form: 32 letters and digits. */
const generateId = () => generateRandomString(32, "a-z", "A-Z", "0-9");

export type CreateUserInput = { email: string; password: string; name: string; role?: RoleName };

/**
 * A new account with a password. An admin role while approvals are required makes an ordinary user and
 * files the grant (202 on REST): one admin never makes another on their own word.
 */
export async function createUser(
  db: Db,
  acting: Acting,
  input: CreateUserInput,
): Promise<{ user: UserView; changeRequest?: ChangeRequestView }> {
  refuseImpersonation(acting.source, "administer accounts");
  const held = input.role === "admin" && acting.approvals === "required";
  const hash = await hashPassword(input.password);
  return db
    .transaction(async (tx) => {
      const id = generateId();
      const [row] = await tx
        .insert(users)
        .values({ id, name: input.name, email: input.email.toLowerCase(), role: held ? "user" : (input.role ?? "user") })
        .returning(userView);
      await storePasswordHash(tx, id, hash);
      const user = toView(row!);
      // Whoever chose a password can sign in as the account: four-eyes counts them as its person (control.ts).
      await recordPasswordChoice(tx, id, acting.source.actor.id);
      await audit(tx, acting, { action: "user.create", userId: id, before: null, after: user });
      return held ? { user, changeRequest: await fileGrant(tx, acting, user) } : { user };
    })
    .catch((err: unknown) => {
      if (sqlState(err) === "23505")
        throw new AppError("CONFLICT", `An account with the e-mail ${input.email.toLowerCase()} exists`, undefined, err);
      throw err;
    });
}

/**
 * Grants or takes back the admin role. A change ends the user's sessions (and, for an admin losing the role,
 * the impersonations they opened); granting while approvals are required files a request instead.
 */
export async function setRole(
  db: Db,
  acting: Acting,
  input: { id: string; role: RoleName },
): Promise<{ user: UserView; changeRequest?: ChangeRequestView }> {
  refuseImpersonation(acting.source, "administer accounts");
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, input.id);
    if (before.role === input.role) return { user: before };
    if (input.role === "admin" && acting.approvals === "required")
      return { user: before, changeRequest: await fileGrant(tx, acting, before) };
    if (input.role !== "admin") await keepAnAdmin(tx, before);
    const user = await changeRole(tx, acting.source, before.id, input.role);
    return { user: user! };
  });
}

/**
 * Sets a user's password and ends their sessions (the caller's own session is spared when it is theirs).
 * Another admin's password is never one admin's to set (403): that would be their account.
 */
export async function setPassword(db: Db, acting: Acting, input: { id: string; password: string }): Promise<{ user: UserView }> {
  refuseImpersonation(acting.source, "administer accounts");
  const hash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const user = await lockedUser(tx, input.id);
    const self = user.id === acting.source.actor.id;
    if (!self && user.role === "admin") throw forbidden("An admin cannot set another admin's password");
    await storePasswordHash(tx, user.id, hash);
    await recordPasswordChoice(tx, user.id, acting.source.actor.id);
    const sessionsEnded = await endSessionsOf(tx, user.id, self ? acting.sessionId : undefined);
    await audit(tx, acting, {
      action: "user.set_password",
      userId: user.id,
      before: null,
      after: null,
      details: { sessionsEnded: sessionsEnded.length },
    });
    return { user };
  });
}

/**
 * Bans a user, for `expiresInDays` or for good: their sessions end, and an admin's impersonations with them;
 * better-auth refuses them sign-in until then. The last admin cannot be banned (409).
 */
export async function banUser(
  db: Db,
  acting: Acting,
  input: { id: string; reason: string; expiresInDays?: number | null },
): Promise<{ user: UserView }> {
  refuseImpersonation(acting.source, "administer accounts");
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, input.id);
    await keepAnAdmin(tx, before);
    const [row] = await tx
      .update(users)
      .set({ banned: true, banReason: input.reason, banExpires: banEnds(input.expiresInDays, Date.now()), updatedAt: new Date() })
      .where(eq(users.id, before.id))
      .returning(userView);
    const sessionsEnded = await endSessionsOf(tx, before.id);
    const user = toView(row!);
    await audit(tx, acting, {
      action: "user.ban",
      userId: user.id,
      before,
      after: user,
      reason: input.reason,
      details: { sessionsEnded: sessionsEnded.length },
    });
    return { user };
  });
}

export async function unbanUser(db: Db, acting: Acting, input: { id: string }): Promise<{ user: UserView }> {
  refuseImpersonation(acting.source, "administer accounts");
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, input.id);
    if (!before.banned) return { user: before };
    const [row] = await tx
      .update(users)
      .set({ banned: false, banReason: null, banExpires: null, updatedAt: new Date() })
      .where(eq(users.id, before.id))
      .returning(userView);
    const user = toView(row!);
    await audit(tx, acting, { action: "user.unban", userId: user.id, before, after: user });
    return { user };
  });
}

/** Ends every session of the user, impersonation sessions of them and by them included. */
export async function revokeSessions(db: Db, acting: Acting, input: { id: string }): Promise<{ sessionsEnded: number }> {
  refuseImpersonation(acting.source, "administer accounts");
  return db.transaction(async (tx) => {
    const user = await lockedUser(tx, input.id);
    const ended = await endSessionsOf(tx, user.id);
    if (ended.length)
      await audit(tx, acting, { action: "user.revoke_sessions", userId: user.id, before: { sessionIds: ended }, after: null });
    return { sessionsEnded: ended.length };
  });
}

/** Removes a user, their sessions and accounts with them; the last admin cannot be removed (409). */
export async function removeUser(db: Db, acting: Acting, input: { id: string }): Promise<{ user: UserView }> {
  refuseImpersonation(acting.source, "administer accounts");
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, input.id);
    await keepAnAdmin(tx, before);
    // Sessions and accounts go with the row (foreign keys); impersonations the user opened do not.
    await endImpersonationsBy(tx, before.id);
    await tx.delete(users).where(eq(users.id, before.id));
    await audit(tx, acting, { action: "user.remove", userId: before.id, before, after: null });
    return { user: before };
  });
}
