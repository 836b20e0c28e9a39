// docs/operators.md#who-may-become-an-admin: with SIGN_UP=closed nobody signs up; an admin makes accounts.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema/index.js";
import { TEST_ORIGIN, useTestApp } from "../helpers/app.js";

const json = { "content-type": "application/json", origin: TEST_ORIGIN };
const newEmail = () => `closed-${randomBytes(5).toString("hex")}@test.local`;
const PASSWORD = "correct-horse-battery";

describe("closed sign-up (SIGN_UP=closed)", () => {
  const t = useTestApp({ signUp: "closed" });
  const accountOf = async (email: string) => (await t().db.db.select({ role: users.role }).from(users).where(eq(users.email, email)))[0];
  const signIn = (email: string) =>
    t().app.inject({ method: "POST", url: "/api/auth/sign-in/email", headers: json, payload: { email, password: PASSWORD } });

  // The limits and this refusal read one rule for "a sign-up" (authOperation): a query string is refused the
  // same, and so is another case spelling (better-auth answers it 404 today; refused should its router fold case).
  it.each(["/api/auth/sign-up/email", "/api/auth/sign-up/email?callbackURL=/", "/api/auth/Sign-Up/Email"])(
    "answers 403 FORBIDDEN to POST %s and makes no account",
    async (url) => {
      const email = newEmail();
      const res = await t().app.inject({
        method: "POST",
        url,
        headers: json,
        payload: { name: "Nobody", email, password: PASSWORD },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: "FORBIDDEN", message: "Sign-up is closed: an admin creates accounts" },
      });
      expect(await accountOf(email)).toBeUndefined();
    },
  );

  it("lets a signed-in admin create an account over HTTP, which then signs in as an ordinary user", async () => {
    const adminEmail = newEmail();
    await t().auth.api.createUser({ body: { email: adminEmail, password: PASSWORD, name: "Admin", role: "admin" } });
    const adminToken = (await signIn(adminEmail)).json().token as string;

    const email = newEmail();
    const created = await t().app.inject({
      method: "POST",
      url: "/api/admin/users",
      headers: { ...json, authorization: `Bearer ${adminToken}` },
      payload: { email, password: PASSWORD, name: "Made by an admin" },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(await accountOf(email)).toEqual({ role: "user" });
    expect((await signIn(email)).statusCode).toBe(200);
  });

  it("refuses account creation to a signed-in user who is not an admin", async () => {
    const userEmail = newEmail();
    await t().auth.api.createUser({ body: { email: userEmail, password: PASSWORD, name: "User" } });
    const token = (await signIn(userEmail)).json().token as string;
    const email = newEmail();
    const res = await t().app.inject({
      method: "POST",
      url: "/api/admin/users",
      headers: { ...json, authorization: `Bearer ${token}` },
      payload: { email, password: PASSWORD, name: "Sneaky" },
    });
    expect(res.statusCode).toBe(403);
    expect(await accountOf(email)).toBeUndefined();
  });
});
