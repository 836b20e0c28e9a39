// issue X: text PostgreSQL cannot store as sent (a NUL, a lone surrogate) in a body sent to better-auth
// answered 500 (update-user, revoke-session, reset-password; sign-up on PostgreSQL) or was silently stored as
// U+FFFD (a sign-up name). The Fastify door refuses such a body before better-auth sees it: 400
// VALIDATION_ERROR in the service's envelope, naming the field, and nothing changes.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema/index.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestUser, useTestApp } from "../helpers/app.js";

const json = { origin: TEST_ORIGIN, "content-type": "application/json" };
const BAD_TEXT = [
  ["a NUL", "Eve\u0000il", "must not contain NUL characters"],
  ["a lone surrogate", "Eve\ud800il", "must be well-formed Unicode (no lone surrogates)"],
] as const;

describe("NUL and lone surrogates in bodies sent to /api/auth/*", () => {
  const t = useTestApp();
  const post = (url: string, payload: unknown, user?: TestUser) =>
    t().app.inject({ method: "POST", url, headers: { ...json, ...user?.headers }, payload: JSON.stringify(payload) });
  const nameOf = async (id: string) => (await t().db.db.select({ name: users.name }).from(users).where(eq(users.id, id)))[0]?.name;
  const expectRefused = (res: { statusCode: number; json(): unknown }, field: string, message: string) => {
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: { code: "VALIDATION_ERROR", message: `Invalid text: ${message}`, details: [{ field, message }] },
    });
  };

  it.each(BAD_TEXT)("sign-up with %s in the name is 400 and makes no account", async (_what, name, message) => {
    const email = `bad-text-${Math.random().toString(36).slice(2)}@test.local`;
    expectRefused(await post("/api/auth/sign-up/email", { name, email, password: TEST_PASSWORD }), "name", message);
    expect(await t().db.db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });

  it.each(BAD_TEXT)("update-user with %s in the name is 400 and leaves the name", async (_what, name, message) => {
    const user = await t().signUp({ name: "Before" });
    expectRefused(await post("/api/auth/update-user", { name }, user), "name", message);
    expectRefused(await post("/api/auth/update-user", { image: name }, user), "image", message);
    expect(await nameOf(user.id)).toBe("Before");
  });

  it("refuses it wherever it is: another endpoint, a nested value, an array item, a key", async () => {
    const user = await t().signUp();
    const nul = "x\u0000y";
    expectRefused(await post("/api/auth/revoke-session", { token: nul }, user), "token", "must not contain NUL characters");
    expectRefused(
      await post("/api/auth/reset-password", { newPassword: TEST_PASSWORD, token: nul }),
      "token",
      "must not contain NUL characters",
    );
    expectRefused(
      await post("/api/auth/sign-in/email", { email: user.email, password: nul }),
      "password",
      "must not contain NUL characters",
    );
    expectRefused(
      await post("/api/auth/update-user", { extra: { list: ["ok", nul] } }, user),
      "extra.list.1",
      "must not contain NUL characters",
    );
    expectRefused(
      await post("/api/auth/update-user", { [nul]: 1 }, user),
      "",
      `the key ${JSON.stringify(nul)} must not contain NUL characters`,
    );
    // The session still works: nothing was revoked or changed.
    expect((await t().app.inject({ method: "GET", url: "/api/auth/get-session", headers: user.headers })).statusCode).toBe(200);
  });

  it("lets well-formed text through, an emoji (a surrogate pair) included", async () => {
    const user = await t().signUp();
    const res = await post("/api/auth/update-user", { name: "Zoë 😀" }, user);
    expect(res.statusCode, res.body).toBe(200);
    expect(await nameOf(user.id)).toBe("Zoë 😀");
  });
});
