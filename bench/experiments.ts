// What-if variants of the product, used only by `npm run bench -- --experiment=…` to measure the effect
// of a recommended change before it is made in files this suite does not own.
import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { sessions, users } from "../db/schema/index.js";
import type { Auth } from "../server/auth.js";

// better-auth's defaults (server/auth.ts sets neither): sessions last 7 days and are extended once a day.
const EXPIRES_IN_S = 7 * 24 * 60 * 60;
const UPDATE_AGE_S = 24 * 60 * 60;

/** A raw bearer token, or the signed cookie form `token.signature`; null when the signature is wrong. */
function bearerToken(headers: Headers, secret: string): string | null {
  const header = headers.get("authorization");
  if (!header || header.slice(0, 7).toLowerCase() !== "bearer ") return null;
  const value = header.slice(7).trim();
  const dot = value.indexOf(".");
  if (dot < 0) return value || null;
  const token = value.slice(0, dot);
  const given = Buffer.from(
    decodeURIComponent(value.slice(dot + 1)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
  );
  const expected = Buffer.from(createHmac("sha256", secret).update(token).digest("base64url"));
  return given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
}

/**
 * Replaces auth.api.getSession for bearer requests with one statement (sessions joined to users, expiry
 * checked in SQL), which is what server/auth.ts's resolveSession could do itself. Cookie requests and
 * sessions due for better-auth's daily refresh still go through better-auth, so behaviour is unchanged.
 */
export function useDirectSessionLookup(auth: Auth, db: Db): void {
  const api = auth.api as unknown as { getSession: (args: { headers: Headers }) => Promise<unknown> };
  const original = api.getSession.bind(api);
  const secret = (auth.options as { secret?: string }).secret ?? "";
  api.getSession = async (args) => {
    const token = bearerToken(args.headers, secret);
    if (!token) return original(args);
    const [row] = await db
      .select({
        user: { id: users.id, name: users.name, email: users.email, role: users.role },
        session: { id: sessions.id, expiresAt: sessions.expiresAt },
      })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.token, token), gt(sessions.expiresAt, sql`now()`)));
    if (!row) return null;
    const dueForRefresh = row.session.expiresAt.getTime() - EXPIRES_IN_S * 1000 + UPDATE_AGE_S * 1000 <= Date.now();
    return dueForRefresh ? original(args) : row;
  };
}
