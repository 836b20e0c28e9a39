// CONTRACT (issue X): besides the per-address-and-e-mail budget, one address has at most 60 failed sign-ins
// a minute (SIGN_IN_PER_ADDRESS_PER_MINUTE); over it, 429 with Retry-After. One address trying a new e-mail
// each time stays under the per-account limit, so only this budget stops it. The client address is
// request.ip, which honours TRUST_PROXY: each test is its own forwarded client, so tests (and reruns on the
// PostgreSQL database, where the counts live) never share an address.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TEST_ORIGIN, TEST_PASSWORD, type TestApp, useTestApp } from "../helpers/app.js";

const json = { origin: TEST_ORIGIN, "content-type": "application/json" };
/** A documentation address (2001:db8::/32) no other test or run uses. */
const freshAddress = () =>
  `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}::${randomBytes(2).toString("hex")}`;
const freshEmail = () => `spray-${randomBytes(6).toString("hex")}@test.local`;

function signInFrom(t: () => TestApp, address: string) {
  return (email: string, password = "wrong-password-123") =>
    t().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { ...json, "x-forwarded-for": address },
      payload: { email, password },
    });
}

describe("failed sign-ins per client address (default 60 a minute)", () => {
  const t = useTestApp({ trustProxy: 1 });

  it("refuses the 61st failure from one address with 61 different e-mails, and no other address", async () => {
    const address = freshAddress();
    const signIn = signInFrom(t, address);
    for (let i = 0; i < 60; i++) expect((await signIn(freshEmail())).statusCode, `attempt ${i + 1}`).toBe(401);
    const limited = await signIn(freshEmail());
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(limited.json()).toEqual({ success: false, error: { code: "TOO_MANY_REQUESTS", message: "Too many requests; try again later" } });
    // Once over, the right password from that address waits too: the budget is checked before better-auth.
    const user = await t().signUp();
    expect((await signIn(user.email, TEST_PASSWORD)).statusCode).toBe(429);
    // Another client is not locked out by the first one's failures.
    expect((await signInFrom(t, freshAddress())(user.email, TEST_PASSWORD)).statusCode).toBe(200);
  });
});

describe("what counts against the per-address budget", () => {
  const t = useTestApp({ trustProxy: 1, limits: { signInFailuresPerAddress: { max: 3, timeWindowMs: 60_000 } } });

  it("counts failures only: successful sign-ins between them spend nothing", async () => {
    const signIn = signInFrom(t, freshAddress());
    const user = await t().signUp();
    for (let i = 0; i < 2; i++) expect((await signIn(freshEmail())).statusCode).toBe(401);
    for (let i = 0; i < 5; i++) expect((await signIn(user.email, TEST_PASSWORD)).statusCode, `success ${i + 1}`).toBe(200);
    expect((await signIn(freshEmail())).statusCode).toBe(401);
    expect((await signIn(freshEmail())).statusCode).toBe(429);
  });

  it("counts a malformed sign-in (better-auth's 400) as a failure", async () => {
    const signIn = signInFrom(t, freshAddress());
    for (let i = 0; i < 3; i++) expect((await signIn("not-an-e-mail")).statusCode).toBe(400);
    expect((await signIn(freshEmail())).statusCode).toBe(429);
  });

  it("honours TRUST_PROXY: forwarded clients behind one trusted proxy each have their own budget", async () => {
    const first = signInFrom(t, freshAddress());
    for (let i = 0; i < 3; i++) expect((await first(freshEmail())).statusCode).toBe(401);
    expect((await first(freshEmail())).statusCode).toBe(429);
    expect((await signInFrom(t, freshAddress())(freshEmail())).statusCode).toBe(401);
  });

  it("leaves sign-up alone", async () => {
    const address = freshAddress();
    for (let i = 0; i < 3; i++) expect((await signInFrom(t, address)(freshEmail())).statusCode).toBe(401);
    const signUp = await t().app.inject({
      method: "POST",
      url: "/api/auth/sign-up/email",
      headers: { ...json, "x-forwarded-for": address },
      payload: { name: "Someone", email: freshEmail(), password: TEST_PASSWORD },
    });
    expect(signUp.statusCode).toBe(200);
  });
});
