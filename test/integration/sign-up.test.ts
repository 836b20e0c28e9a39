// docs/operators.md#who-may-become-an-admin: sign-up makes ordinary users only (outside the development
// address list), is limited per client address, and can be closed so that only an admin makes accounts.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { users } from "../../db/schema/index.js";
import { TEST_ORIGIN, type TestApp, useTestApp } from "../helpers/app.js";

const json = { "content-type": "application/json", origin: TEST_ORIGIN };
const newEmail = () => `signup-${randomBytes(5).toString("hex")}@test.local`;

const signUp = (t: TestApp, body: Record<string, unknown>, remoteAddress = "127.0.0.1") =>
  t.app.inject({ method: "POST", url: "/api/auth/sign-up/email", headers: json, payload: body, remoteAddress });

const accountOf = async (t: TestApp, email: string) =>
  (await t.db.db.select({ role: users.role }).from(users).where(eq(users.email, email)))[0];

describe("open sign-up", () => {
  const t = useTestApp({ limits: { signUp: { max: 3, timeWindowMs: 60_000 } } });

  it("refuses a body that asks for a role, and makes no account", async () => {
    const email = newEmail();
    const res = await signUp(t(), { name: "Eve", email, password: "correct-horse-battery", role: "admin" }, "10.9.0.1");
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "FIELD_NOT_ALLOWED" });
    expect(await accountOf(t(), email)).toBeUndefined();
  });

  it("answers 429 TOO_MANY_REQUESTS with Retry-After past the limit per client address, others unaffected", async () => {
    const address = "10.9.0.2";
    for (let i = 0; i < 3; i++) {
      const res = await signUp(t(), { name: "Many", email: newEmail(), password: "correct-horse-battery" }, address);
      expect(res.statusCode, res.body).toBe(200);
    }
    const email = newEmail();
    const limited = await signUp(t(), { name: "Many", email, password: "correct-horse-battery" }, address);
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.json()).toEqual({
      success: false,
      error: { code: "TOO_MANY_REQUESTS", message: "Too many requests; try again later" },
    });
    expect(await accountOf(t(), email)).toBeUndefined();

    const elsewhere = await signUp(t(), { name: "Other", email: newEmail(), password: "correct-horse-battery" }, "10.9.0.3");
    expect(elsewhere.statusCode).toBe(200);
  });
});
