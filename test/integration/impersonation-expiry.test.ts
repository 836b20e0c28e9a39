// docs/api.md#authentication: an impersonation session ends after the hour better-auth gives it. Nothing a
// caller does with it moves that: not better-auth's own get-session (which refreshes a session of the user's
// own to 7 days), not the service's calls, by bearer token or by cookie.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessions } from "../../db/schema/index.js";
import { SESSION_LIFETIME } from "../../server/auth/better-auth.js";
import { useTestApp } from "../helpers/app.js";
import { impersonate, sessionCookie } from "../helpers/four-eyes.js";
import { byHand } from "../helpers/memory.js";

const t = useTestApp();
const HOUR = 3_600_000;

/** An impersonation session: its bearer token, its signed cookie (without better-auth's don't-remember cookie), its id. */
async function impersonation() {
  const admin = await t().signUp({ admin: true });
  const user = await t().signUp();
  const session = await impersonate(t(), admin, user);
  return { bearer: session.headers, cookie: sessionCookie(session.token), id: session.sessionId };
}

const expiryOf = async (id: string) => (await t().db.db.select().from(sessions).where(eq(sessions.id, id)))[0]!.expiresAt.getTime();

/** Moves the session's expiry as if it had been made `ago` ms earlier, so better-auth finds it due for refresh. */
async function age(id: string, ago: number) {
  await byHand(
    t()
      .db.db.update(sessions)
      .set({ expiresAt: new Date(Date.now() + HOUR - ago) })
      .where(eq(sessions.id, id)),
  );
}

describe("an impersonation session ends after its hour", () => {
  it("starts with an hour", async () => {
    const session = await impersonation();
    expect(await expiryOf(session.id)).toBeLessThanOrEqual(Date.now() + HOUR);
  });

  for (const via of ["bearer", "cookie"] as const) {
    it(`GET /api/auth/get-session (${via}) leaves its expiry where it was`, async () => {
      const session = await impersonation();
      await age(session.id, 10 * 60_000);
      const before = await expiryOf(session.id);
      const res = await t().app.inject({ method: "GET", url: "/api/auth/get-session", headers: session[via] });
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as { session: { id: string } }).session.id).toBe(session.id);
      expect(await expiryOf(session.id)).toBe(before);
      expect(before).toBeLessThan(Date.now() + HOUR);
    });

    it(`the service's calls (${via}) leave its expiry where it was, and it ends on time`, async () => {
      const session = await impersonation();
      await age(session.id, 10 * 60_000);
      const before = await expiryOf(session.id);
      for (const url of ["/api/notifications/unread-count", "/api/notifications"]) {
        const res = await t().app.inject({ method: "GET", url, headers: session[via] });
        expect(res.statusCode, res.body).toBe(200);
      }
      expect(await expiryOf(session.id)).toBe(before);
      // Past its hour, it is refused.
      await age(session.id, HOUR + 1000);
      const late = await t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: session[via] });
      expect(late.statusCode).toBe(401);
    });
  }

  it("a session of the user's own is still refreshed to its 7 days", async () => {
    const user = await t().signUp();
    await byHand(
      t()
        .db.db.update(sessions)
        .set({ expiresAt: new Date(Date.now() + HOUR) })
        .where(eq(sessions.userId, user.id)),
    );
    const res = await t().app.inject({ method: "GET", url: "/api/auth/get-session", headers: user.headers });
    expect(res.statusCode).toBe(200);
    const [own] = await t().db.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(own!.expiresAt.getTime()).toBeGreaterThan(Date.now() + SESSION_LIFETIME.expiresInSeconds * 1000 - 24 * HOUR);
  });
});
