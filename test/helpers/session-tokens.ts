// Session tokens as a client holds them: a sign-in's token, bearer header and cookie, and values signed the
// way better-auth signs them, for tests of what the sessions table does and does not accept. A cookie for a
// token is four-eyes.ts's sessionCookie.
import { createHmac } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import { TEST_AUTH_SECRET, TEST_ORIGIN, TEST_PASSWORD, type TestApp } from "./app.js";

export const SESSION_COOKIE = "better-auth.session_token";

/** `value.signature` as better-auth's signed cookie holds it (HMAC-SHA256, base64), URL-encoded. */
export const signedValue = (value: string, secret = TEST_AUTH_SECRET) =>
  encodeURIComponent(`${value}.${createHmac("sha256", secret).update(value).digest("base64")}`);

export type SignedIn = {
  /** The token of the answer's body. */
  token: string;
  /** `set-auth-token`, the bearer plugin's header: the signed form, `token.signature`. */
  header: string;
  /** The session cookie's value as set: `token.signature`, URL-encoded. */
  cookie: string;
};

/** Signs in with email and password, and returns the new session's token in each form the answer gives it. */
export async function signIn(app: TestApp, email: string): Promise<SignedIn> {
  const res: LightMyRequestResponse = await app.app.inject({
    method: "POST",
    url: "/api/auth/sign-in/email",
    headers: { origin: TEST_ORIGIN, "content-type": "application/json" },
    payload: { email, password: TEST_PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE)!.value;
  return { token: (res.json() as { token: string }).token, header: String(res.headers["set-auth-token"]), cookie };
}

/** A signed value (`token.signature`, maybe URL-encoded) with its signature's first character changed, URL-encoded. */
export function withTamperedSignature(value: string): string {
  const [token, signature] = decodeURIComponent(value).split(".") as [string, string];
  return encodeURIComponent(`${token}.${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`);
}

/** The token inside a session cookie's value or set-auth-token (`token.signature`, maybe URL-encoded). */
export const tokenOfCookie = (value: string) => decodeURIComponent(value).split(".")[0]!;
