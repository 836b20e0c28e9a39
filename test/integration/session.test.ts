// The session lookup: a bearer token costs one statement, and better-auth's rules (refresh, expiry,
// signed tokens) still decide every case the fast path does not take.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessions, users } from "../../db/schema/index.js";
import { SESSION_LIFETIME } from "../../server/auth/better-auth.js";
import { TEST_ORIGIN, useTestApp } from "../helpers/app.js";
import { byHand } from "../helpers/memory.js";
import { SESSION_COOKIE, signIn, withTamperedSignature } from "../helpers/session-tokens.js";

const t = useTestApp();
const COUNT = "/api/notifications/unread-count";
const DAY = 24 * 60 * 60 * 1000;

const sessionOf = async (userId: string) => (await t().db.db.select().from(sessions).where(eq(sessions.userId, userId)))[0]!;

describe("session lookup", () => {
  it("resolves a bearer token with one statement and changes nothing", async () => {
    const user = await t().signUp();
    const before = await sessionOf(user.id);
    t().db.queries.length = 0;
    const res = await t().app.inject({ method: "GET", url: COUNT, headers: user.headers });
    expect(res.statusCode).toBe(200);
    // better-auth's getSession reads sessions, then users: two round trips.
    const authQueries = t().db.queries.filter((q) => q.includes('"sessions"') || q.includes('"users"'));
    expect(authQueries).toHaveLength(1);
    expect(authQueries[0]).toMatch(/^select .* from "sessions" inner join "users"/);
    expect((await sessionOf(user.id)).expiresAt).toEqual(before.expiresAt);
  });

  it("looks the session up once per request, also when the Idempotency-Key check needs the caller first", async () => {
    const user = await t().signUp();
    t().db.queries.length = 0;
    const res = await t().app.inject({
      method: "PATCH",
      url: "/api/notifications/read-all",
      headers: { ...user.headers, "idempotency-key": `once-${user.id}` },
    });
    expect(res.statusCode).toBe(200);
    const lookups = t().db.queries.filter((q) => /from "sessions" inner join "users"/.test(q));
    expect(lookups).toHaveLength(1);
  });

  it("accepts the signed cookie value as a bearer token, and refuses it with a tampered signature", async () => {
    const user = await t().signUp();
    const signIn = await t().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      payload: { email: user.email, password: "correct-horse-battery" },
    });
    const cookie = signIn.cookies.find((c) => c.name.endsWith("session_token"))!;
    expect(cookie.value).toContain(".");
    const signed = await t().app.inject({ method: "GET", url: COUNT, headers: { authorization: `Bearer ${cookie.value}` } });
    expect(signed.statusCode).toBe(200);

    const tampered = withTamperedSignature(cookie.value);
    const refused = await t().app.inject({ method: "GET", url: COUNT, headers: { authorization: `Bearer ${tampered}` } });
    expect(refused.statusCode).toBe(401);
  });

  it("resolves the signed session cookie as a bearer token: one statement, better-auth not asked", async () => {
    const user = await t().signUp();
    const { cookie } = await signIn(t(), user.email);
    t().db.queries.length = 0;
    const res = await t().app.inject({ method: "GET", url: COUNT, headers: { cookie: `theme=dark; ${SESSION_COOKIE}=${cookie}` } });
    expect(res.statusCode).toBe(200);
    const authQueries = t().db.queries.filter((q) => q.includes('"sessions"') || q.includes('"users"'));
    expect(authQueries).toHaveLength(1);
    expect(authQueries[0]).toMatch(/^select .* from "sessions" inner join "users"/);
  });

  it("leaves a cookie it cannot read for certain to better-auth, which decides the same", async () => {
    const user = await t().signUp();
    const { cookie } = await signIn(t(), user.email);
    const tampered = withTamperedSignature(cookie);
    const count = (header: string) => t().app.inject({ method: "GET", url: COUNT, headers: { cookie: header } });
    expect((await count(`${SESSION_COOKIE}=${tampered}`)).statusCode).toBe(401);
    // The name twice: better-auth takes the first.
    expect((await count(`${SESSION_COOKIE}=${cookie}; ${SESSION_COOKIE}=${tampered}`)).statusCode).toBe(200);
    expect((await count(`${SESSION_COOKIE}=${tampered}; ${SESSION_COOKIE}=${cookie}`)).statusCode).toBe(401);
  });

  it("refuses the session cookie from the request after its sign-out, though memory had answered it", async () => {
    const user = await t().signUp();
    const { cookie } = await signIn(t(), user.email);
    const header = { cookie: `${SESSION_COOKIE}=${cookie}` };
    for (let i = 0; i < 2; i++) expect((await t().app.inject({ method: "GET", url: COUNT, headers: header })).statusCode).toBe(200);
    const out = await t().app.inject({ method: "POST", url: "/api/auth/sign-out", headers: { ...header, origin: TEST_ORIGIN } });
    expect(out.statusCode).toBe(200);
    expect((await t().app.inject({ method: "GET", url: COUNT, headers: header })).statusCode).toBe(401);
  });

  it("lets better-auth extend a session that is due for its daily refresh", async () => {
    const user = await t().signUp();
    const soon = new Date(Date.now() + 60 * 60 * 1000);
    await byHand(t().db.db.update(sessions).set({ expiresAt: soon }).where(eq(sessions.userId, user.id)));
    const res = await t().app.inject({ method: "GET", url: COUNT, headers: user.headers });
    expect(res.statusCode).toBe(200);
    const extended = (await sessionOf(user.id)).expiresAt.getTime();
    expect(extended).toBeGreaterThan(Date.now() + SESSION_LIFETIME.expiresInSeconds * 1000 - DAY);
  });

  it("refuses an expired session and better-auth deletes it", async () => {
    const user = await t().signUp();
    await byHand(
      t()
        .db.db.update(sessions)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(sessions.userId, user.id)),
    );
    const res = await t().app.inject({ method: "GET", url: COUNT, headers: user.headers });
    expect(res.statusCode).toBe(401);
    expect(await t().db.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);
  });

  it("sees a role change made in the table on the next request", async () => {
    const user = await t().signUp({ admin: true });
    const cohorts = () => t().app.inject({ method: "GET", url: "/api/admin/restriction/cohorts", headers: user.headers });
    expect((await cohorts()).statusCode).toBe(200);
    await byHand(t().db.db.update(users).set({ role: "user" }).where(eq(users.id, user.id)));
    expect((await cohorts()).statusCode).toBe(403);
  });
});
