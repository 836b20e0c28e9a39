// Tokens at rest (docs/guarantees.md): the sessions table holds each session token's SHA-256, never the token,
// so nothing a database reader or a backup holds can be presented as a bearer token or a cookie. The raw
// token keeps working in every form (bearer, signed bearer, cookie), through the fast path and better-auth's
// own, across sign-out and the daily refresh; sessions opened before migration 0022 keep working after it.
import { rmSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowsOf } from "../../db/arrays.js";
import { sessions, users } from "../../db/schema/index.js";
import { SESSION_LIFETIME } from "../../server/auth/better-auth.js";
import { sessionTokenHash } from "../../server/auth/hashed-session-tokens.js";
import { createTestApp, type TestApp, useTestApp } from "../helpers/app.js";
import { migrationsBefore, openTestDb, type TestDb } from "../helpers/db.js";
import { everyRow } from "../helpers/db-dump.js";
import { impersonate, sessionCookie } from "../helpers/four-eyes.js";
import { byHand } from "../helpers/memory.js";
import { SESSION_COOKIE, signedValue, signIn, tokenOfCookie } from "../helpers/session-tokens.js";

const COUNT = "/api/notifications/unread-count";
const HOUR = 60 * 60 * 1000;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The status of an authed route, and who better-auth's get-session says is calling, for these headers. */
async function callerWith(app: TestApp, headers: Record<string, string>) {
  const count = await app.app.inject({ method: "GET", url: COUNT, headers });
  const session = await app.app.inject({ method: "GET", url: "/api/auth/get-session", headers });
  const body = session.json() as { user?: { id: string } } | null;
  return { count: count.statusCode, user: body?.user?.id ?? null };
}

const storedTokens = async (app: TestApp, userId: string) =>
  (await app.db.db.select({ token: sessions.token }).from(sessions).where(eq(sessions.userId, userId))).map((s) => s.token);

describe("session tokens at rest", () => {
  const t = useTestApp();

  it("no table holds a token, for sessions made by sign-up, sign-in (bearer and cookie) and impersonation", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const signedIn = await signIn(t(), user.email);
    // set-auth-token and the cookie both carry the signed form, `token.signature`.
    expect(tokenOfCookie(signedIn.header)).toBe(signedIn.token);
    expect(tokenOfCookie(signedIn.cookie)).toBe(signedIn.token);
    const impersonation = (await impersonate(t(), admin, user)).token;
    const tokens = [admin.token, user.token, signedIn.token, impersonation];

    const dump = await everyRow(t().db.db);
    for (const token of tokens) {
      expect(token.length).toBeGreaterThanOrEqual(32);
      expect(dump).not.toContain(token);
    }
    // What is stored is each token's SHA-256, and nothing else.
    const stored = [...(await storedTokens(t(), admin.id)), ...(await storedTokens(t(), user.id))];
    expect(stored.sort()).toEqual(tokens.map(sessionTokenHash).sort());
  });

  it("a stored value is refused as a bearer token, signed or not, and as a cookie, on both lookups", async () => {
    const user = await t().signUp();
    await signIn(t(), user.email);
    const stored = await storedTokens(t(), user.id);
    expect(stored).toHaveLength(2);
    for (const value of stored) {
      // The fast path (bearer), then better-auth's (get-session, and the route's fallback) refuse it.
      expect(await callerWith(t(), bearer(value))).toEqual({ count: 401, user: null });
      // Signed with the service's secret, as if that leaked too: still no session.
      expect(await callerWith(t(), bearer(signedValue(value)))).toEqual({ count: 401, user: null });
      expect(await callerWith(t(), sessionCookie(value))).toEqual({ count: 401, user: null });
      expect(value).toMatch(/^[0-9a-f]{64}$/);
    }
    // Nothing was deleted or changed by the attempts.
    expect((await storedTokens(t(), user.id)).sort()).toEqual(stored.sort());
  });

  it("the raw token works as a bearer token, signed bearer token and cookie, and sign-out ends it", async () => {
    const user = await t().signUp();
    const { token, cookie } = await signIn(t(), user.email);
    const works = { count: 200, user: user.id };
    expect(await callerWith(t(), bearer(token))).toEqual(works);
    expect(await callerWith(t(), bearer(cookie))).toEqual(works);
    expect(await callerWith(t(), { cookie: `${SESSION_COOKIE}=${cookie}` })).toEqual(works);
    expect(await callerWith(t(), sessionCookie(token))).toEqual(works);

    const out = await t().app.inject({ method: "POST", url: "/api/auth/sign-out", headers: bearer(token) });
    expect(out.statusCode, out.body).toBe(200);
    expect(await callerWith(t(), bearer(token))).toEqual({ count: 401, user: null });
    expect(await callerWith(t(), sessionCookie(token))).toEqual({ count: 401, user: null });
    // The user's sign-up session is untouched.
    expect(await storedTokens(t(), user.id)).toEqual([sessionTokenHash(user.token)]);
  });

  it("better-auth's daily refresh finds the session by its token, extends it and hands the same token back", async () => {
    const user = await t().signUp();
    const due = () =>
      byHand(
        t()
          .db.db.update(sessions)
          .set({ expiresAt: new Date(Date.now() + HOUR) })
          .where(eq(sessions.userId, user.id)),
      );
    const expiry = async () => (await t().db.db.select().from(sessions).where(eq(sessions.userId, user.id)))[0]!.expiresAt.getTime();
    const refreshed = () => expect(expiry()).resolves.toBeGreaterThan(Date.now() + SESSION_LIFETIME.expiresInSeconds * 1000 - 2 * HOUR);

    // By bearer: the fast path leaves a due session to better-auth, which extends it.
    await due();
    const byBearer = await t().app.inject({ method: "GET", url: "/api/auth/get-session", headers: user.headers });
    expect((byBearer.json() as { user: { id: string } }).user.id).toBe(user.id);
    expect(tokenOfCookie(String(byBearer.headers["set-auth-token"]))).toBe(user.token);
    await refreshed();

    // By cookie: the refreshed cookie carries the raw token, and keeps working.
    await due();
    const byCookie = await t().app.inject({ method: "GET", url: "/api/auth/get-session", headers: sessionCookie(user.token) });
    const renewed = byCookie.cookies.find((c) => c.name === SESSION_COOKIE)!;
    expect(tokenOfCookie(renewed.value)).toBe(user.token);
    await refreshed();
    expect(await callerWith(t(), { cookie: `${SESSION_COOKIE}=${renewed.value}` })).toEqual({ count: 200, user: user.id });
    expect(await storedTokens(t(), user.id)).toEqual([sessionTokenHash(user.token)]);
  });

  it("listed sessions show no token; revoke-session takes the token, and revoke-other-sessions still ends the others", async () => {
    const user = await t().signUp();
    const second = await signIn(t(), user.email);
    const third = await signIn(t(), user.email);
    const post = (path: string, payload: object) =>
      t().app.inject({
        method: "POST",
        url: `/api/auth/${path}`,
        headers: { ...user.headers, "content-type": "application/json" },
        payload,
      });

    const listed = await t().app.inject({ method: "GET", url: "/api/auth/list-sessions", headers: user.headers });
    const mine = listed.json() as { token: string }[];
    expect(mine.map((s) => s.token).sort()).toEqual([user.token, second.token, third.token].map(sessionTokenHash).sort());

    // A listed value names no session to revoke; the token does.
    expect((await post("revoke-session", { token: sessionTokenHash(third.token) })).statusCode).toBe(200);
    expect((await callerWith(t(), bearer(third.token))).count).toBe(200);
    expect((await post("revoke-session", { token: third.token })).statusCode).toBe(200);
    expect((await callerWith(t(), bearer(third.token))).count).toBe(401);

    const others = await post("revoke-other-sessions", {});
    expect(others.statusCode, others.body).toBe(200);
    expect((await callerWith(t(), bearer(second.token))).count).toBe(401);
    expect((await callerWith(t(), user.headers)).count).toBe(200);
    expect(await storedTokens(t(), user.id)).toEqual([sessionTokenHash(user.token)]);
  });
});

const TAG = "0022_hashed_session_tokens";

describe(`migration ${TAG}`, () => {
  let db: TestDb;
  let app: TestApp | undefined;
  let earlier: string;
  beforeAll(async () => {
    db = await openTestDb({ migrated: false });
    earlier = migrationsBefore(TAG);
  });
  afterAll(async () => {
    await app?.app.close();
    await db?.close();
    rmSync(earlier, { recursive: true, force: true });
  });

  it("hashes the tokens of sessions opened before it, which keep working after it", async () => {
    await db.migrate(earlier);
    const user = { id: "before-0022", name: "Before", email: "before-0022@test.local" };
    await db.db.insert(users).values({ id: user.id, name: user.name, email: user.email });
    const tokens = ["pre-migration-bearer-token-0123456789abcdef", "pre-migration-cookie-token-0123456789abcdef"];
    for (const [i, token] of tokens.entries()) {
      await db.db
        .insert(sessions)
        .values({ id: `before-0022-${i}`, token, userId: user.id, expiresAt: new Date(Date.now() + 2 * 24 * HOUR) });
    }

    await db.migrate();
    expect((await db.db.select({ token: sessions.token }).from(sessions)).map((s) => s.token).sort()).toEqual(
      tokens.map(sessionTokenHash).sort(),
    );
    // The database's hash is Node's, also for text beyond ASCII.
    const odd = "tökén-✓";
    const [row] = rowsOf<{ hash: string }>(await db.db.execute(sql`select encode(sha256(convert_to(${odd}, 'UTF8')), 'hex') as hash`));
    expect(row?.hash).toBe(sessionTokenHash(odd));

    app = await createTestApp({ db });
    expect(await callerWith(app, bearer(tokens[0]!))).toEqual({ count: 200, user: user.id });
    expect(await callerWith(app, sessionCookie(tokens[1]!))).toEqual({ count: 200, user: user.id });
    expect(await callerWith(app, bearer(sessionTokenHash(tokens[0]!)))).toEqual({ count: 401, user: null });
  });
});
