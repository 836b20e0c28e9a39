// Impersonation (docs/api.md#accounts): an admin signs in as an ordinary user for at most an hour to see
// what they see. The session names its admin (sessions.impersonated_by); everything done with it is
// audited with that admin, it administers nothing and decides no change request (acting.ts), and it ends
// when its admin stops being an admin (sessions.ts, server/auth/session.ts).
import { generateRandomString } from "better-auth/crypto";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { sessions, users } from "../../db/schema/index.js";
import { recordAudit } from "../audit/record.js";
// The table keeps the token's SHA-256 only, as for every session (tokens at rest).
import { sessionTokenHash } from "../auth/hashed-session-tokens.js";
import { AppError, forbidden, notFound } from "../errors/errors.js";
import { type Acting, refuseImpersonation } from "./acting.js";
import { IMPERSONATION_MS, isBannedNow } from "./rules.js";

export async function impersonate(
  db: Db,
  acting: Acting & { userAgent: string | null },
  input: { id: string },
): Promise<{ token: string; expiresAt: Date }> {
  refuseImpersonation(acting.source, "start another impersonation");
  const admin = acting.source.actor;
  if (input.id === admin.id) throw forbidden("An admin cannot impersonate themselves");
  return db.transaction(async (tx) => {
    const [user] = await tx
      .select({ id: users.id, role: users.role, banned: users.banned, banExpires: users.banExpires })
      .from(users)
      .where(eq(users.id, input.id))
      .for("update");
    if (!user) throw notFound("User", input.id);
    // Another admin's account would be a second admin's voice for one person.
    if (user.role === "admin") throw forbidden("An admin cannot impersonate another admin");
    if (isBannedNow(user, Date.now())) throw new AppError("CONFLICT", "This user is banned: a banned user has no sessions");
    const token = generateRandomString(32, "a-z", "A-Z", "0-9");
    const expiresAt = new Date(Date.now() + IMPERSONATION_MS);
    const [session] = await tx
      .insert(sessions)
      .values({
        id: generateRandomString(32, "a-z", "A-Z", "0-9"),
        token: sessionTokenHash(token),
        userId: user.id,
        expiresAt,
        impersonatedBy: admin.id,
        userAgent: acting.userAgent?.slice(0, 512) ?? null,
      })
      .returning({ id: sessions.id });
    await recordAudit(tx, acting.source, {
      action: "user.impersonate",
      target: { type: "user", id: user.id },
      before: null,
      after: { sessionId: session!.id, expiresAt },
    });
    return { token, expiresAt };
  });
}

/**
 * Ends the caller's impersonation session (bearer or cookie), audited as its admin's act about the user;
 * 409 when the caller's session is their own.
 */
export async function stopImpersonating(
  db: Db,
  caller: {
    user: { id: string; email: string };
    sessionId: string;
    impersonatedBy: { id: string; email: string } | null | undefined;
    requestId: string | null;
  },
): Promise<{ ended: true }> {
  const admin = caller.impersonatedBy;
  if (!admin) throw new AppError("CONFLICT", "This session is not an impersonation session: sign out instead");
  return db.transaction(async (tx) => {
    await tx.delete(sessions).where(eq(sessions.id, caller.sessionId));
    await recordAudit(
      tx,
      { actor: admin, requestId: caller.requestId },
      {
        action: "user.stop_impersonating",
        target: { type: "user", id: caller.user.id },
        before: { sessionId: caller.sessionId },
        after: null,
      },
    );
    return { ended: true as const };
  });
}
