// Sign-in from a program (docs/api.md#browsers, issue U.3): Node's own fetch sends `Sec-Fetch-Mode: cors` and
// no Origin, which better-auth took for a browser hiding its origin (403 MISSING_OR_NULL_ORIGIN) while curl,
// which sends neither, was let in. A call with no cookie, no Origin, no Referer and no Sec-Fetch-Site is no
// page's doing and is let in the same; everything a browser sends keeps better-auth's full origin check.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_PASSWORD, type TestUser, useTestApp } from "../helpers/app.js";
import { freePort } from "../helpers/net.js";

const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const EVIL = "https://evil.example";

describe("signing in from a program, and from another site's page", () => {
  // Every attempt here is the same address and account: the sign-in limit is not what this file tests.
  const t = useTestApp({ limits: { signIn: { max: 100_000, timeWindowMs: 60_000 } } });
  let user: TestUser;
  beforeAll(async () => {
    await t().app.listen({ port, host: "127.0.0.1" });
    user = await t().signUp();
  });

  const credentials = () => ({ email: user.email, password: TEST_PASSWORD });
  /** A sign-in with exactly these headers besides the JSON content type. */
  const signIn = (headers: Record<string, string>) =>
    t().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { "content-type": "application/json", ...headers },
      payload: credentials(),
    });
  const code = (res: { body: string }) => (JSON.parse(res.body) as { code?: string }).code;

  it("Node's fetch signs in and signs up as curl does, with no Origin", async () => {
    const res = await fetch(`${baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(credentials()),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const { token } = (await res.json()) as { token: string };
    const session = await fetch(`${baseUrl}/api/auth/get-session`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe(user.email);

    const email = `program-${randomBytes(4).toString("hex")}@test.local`;
    const signUp = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Program", email, password: TEST_PASSWORD }),
    });
    expect(signUp.status, await signUp.clone().text()).toBe(200);
  });

  it("the headers Node's fetch sends, and curl's, sign in", async () => {
    const programs: Record<string, string>[] = [{ "sec-fetch-mode": "cors" }, {}, { "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" }];
    for (const headers of programs) {
      expect({ headers, status: (await signIn(headers)).statusCode }).toEqual({ headers, status: 200 });
    }
  });

  it("a page on another site is refused, whatever it sends: its Origin, a null one, only a Referer or only Fetch Metadata", async () => {
    const attempts: { headers: Record<string, string>; code: string }[] = [
      { headers: { origin: EVIL, "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors" }, code: "INVALID_ORIGIN" },
      { headers: { origin: EVIL }, code: "INVALID_ORIGIN" },
      { headers: { origin: "null", "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors" }, code: "MISSING_OR_NULL_ORIGIN" },
      { headers: { referer: `${EVIL}/page`, "sec-fetch-mode": "cors" }, code: "INVALID_ORIGIN" },
      { headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors" }, code: "MISSING_OR_NULL_ORIGIN" },
      { headers: { "sec-fetch-site": "same-site", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" }, code: "MISSING_OR_NULL_ORIGIN" },
    ];
    for (const { headers, code: expected } of attempts) {
      const res = await signIn(headers);
      expect({ headers, status: res.statusCode, code: code(res) }).toEqual({ headers, status: 403, code: expected });
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("a call carrying any cookie keeps the full origin check: without a trusted Origin it is refused", async () => {
    const session = `better-auth.session_token=${user.token}`;
    const sessionRefused = await signIn({ cookie: session, "sec-fetch-mode": "cors" });
    expect(sessionRefused.statusCode).toBe(403);
    expect(sessionRefused.json()).toMatchObject({ error: { code: "FORBIDDEN" } });

    const other = await signIn({ cookie: "theme=dark", "sec-fetch-mode": "cors" });
    expect({ status: other.statusCode, code: code(other) }).toEqual({ status: 403, code: "MISSING_OR_NULL_ORIGIN" });
    const plainOther = await signIn({ cookie: "theme=dark" });
    expect({ status: plainOther.statusCode, code: code(plainOther) }).toEqual({ status: 403, code: "MISSING_OR_NULL_ORIGIN" });
  });
});
