// issue X: better-auth answers some refusals with no body or the body `null` (a wrong method's 404, the admin
// plugin's 401), which tells a client nothing. Every 4xx of /api/auth/* with an empty or null body gets the
// service's envelope (docs/api.md#errors) with better-auth's status kept; better-auth's own refusals
// (`{message, code}`) and its successes, a null session included, pass as they were.
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { type Auth, mountAuth } from "../../server/auth/better-auth.js";
import { TEST_ORIGIN, TEST_PASSWORD, useTestApp } from "../helpers/app.js";

/** A Fastify app whose better-auth answers each request with the next of `answers`. */
function appAnswering(answers: (() => Response)[]) {
  const app = Fastify();
  const auth = { options: { baseURL: TEST_ORIGIN }, handler: async () => answers.shift()!() } as unknown as Auth;
  mountAuth(app, auth);
  return app;
}

describe("mountAuth: empty refusals get the envelope", () => {
  const jsonHeaders = { "content-type": "application/json", "content-length": "4" };
  const app = appAnswering([
    () => new Response("null", { status: 401, headers: jsonHeaders }),
    () => new Response(null, { status: 403 }),
    () => new Response("", { status: 404 }),
    () => new Response("null", { status: 422, headers: jsonHeaders }),
    () => new Response(JSON.stringify({ message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" }), { status: 401 }),
    () => new Response("null", { status: 200, headers: jsonHeaders }),
  ]);
  afterAll(() => app.close());
  const ask = () => app.inject({ method: "GET", url: "/api/auth/anything" });

  it.each([
    [401, "UNAUTHORIZED", "Unauthorized"],
    [403, "FORBIDDEN", "Forbidden"],
    [404, "NOT_FOUND", "Not Found"],
    [422, "VALIDATION_ERROR", "Unprocessable Entity"],
  ])("a %i without a body answers the envelope with the same status", async (status, code, message) => {
    const res = await ask();
    expect(res.statusCode).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ success: false, error: { code, message } });
  });

  it("leaves better-auth's own refusal and a null success as they were", async () => {
    const refusal = await ask();
    expect([refusal.statusCode, refusal.json()]).toEqual([
      401,
      { message: "Invalid email or password", code: "INVALID_EMAIL_OR_PASSWORD" },
    ]);
    const nullSession = await ask();
    expect([nullSession.statusCode, nullSession.body]).toEqual([200, "null"]);
  });
});

describe("the service's /api/auth/* refusals", () => {
  const t = useTestApp();

  it("a wrong method on a better-auth path answers 404 in the envelope, not null", async () => {
    const res = await t().app.inject({ method: "GET", url: "/api/auth/sign-out" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: { code: "NOT_FOUND", message: "Not Found" } });
  });

  it("a duplicate sign-up answers better-auth's 422, with its code (documented, not remapped)", async () => {
    const user = await t().signUp();
    const res = await t().app.inject({
      method: "POST",
      url: "/api/auth/sign-up/email",
      headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
      payload: { name: "Again", email: user.email, password: TEST_PASSWORD },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL" });
  });
});
