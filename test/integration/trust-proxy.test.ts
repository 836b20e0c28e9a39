// Client addresses behind a proxy (docs/scaling.md#running-n-instances-behind-a-load-balancer, TRUST_PROXY): forwarding headers count
// only when the proxy they come through is trusted. Off, anyone can write X-Forwarded-For, so it is ignored
// everywhere: the sign-in and sign-up limits and the address better-auth records with a session. Trusted,
// each forwarded client is its own.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sessions } from "../../db/schema/index.js";
import { sessionTokenHash } from "../../server/auth/hashed-session-tokens.js";
import { TEST_ORIGIN, TEST_PASSWORD, type TestApp, useTestApp } from "../helpers/app.js";

const limits = { signIn: { max: 3, timeWindowMs: 60_000 }, signUp: { max: 3, timeWindowMs: 60_000 } };
const json = { origin: TEST_ORIGIN, "content-type": "application/json" };

function client(t: () => TestApp) {
  const post = (url: string, payload: object, forwardedFor?: string) =>
    t().app.inject({ method: "POST", url, headers: { ...json, ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) }, payload });
  return {
    signIn: (email: string, password: string, forwardedFor?: string) => post("/api/auth/sign-in/email", { email, password }, forwardedFor),
    signUp: (email: string, forwardedFor?: string) =>
      post("/api/auth/sign-up/email", { name: "Someone", email, password: TEST_PASSWORD }, forwardedFor),
    /** The client address better-auth recorded with a session (found by its token's hash, as stored). */
    recordedAddress: async (token: string) => {
      const [row] = await t()
        .db.db.select({ ip: sessions.ipAddress })
        .from(sessions)
        .where(eq(sessions.token, sessionTokenHash(token)));
      return row?.ip;
    },
  };
}

const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2)}@test.local`;

/** An account made on the server side, so its sign-up spends no client's budget. */
async function account(t: () => TestApp): Promise<{ email: string }> {
  const email = uniqueEmail("user");
  await t().auth.api.signUpEmail({ body: { name: "User", email, password: TEST_PASSWORD } });
  return { email };
}

describe("TRUST_PROXY off (the default): X-Forwarded-For is anyone's to write, and ignored", () => {
  const t = useTestApp({ limits });
  const c = client(t);

  it("bad sign-ins from 'different' forwarded addresses all count against the real client", async () => {
    const victim = await account(t);
    for (let i = 0; i < 3; i++) expect((await c.signIn(victim.email, "wrong-password", `203.0.113.${i}`)).statusCode).toBe(401);
    const limited = await c.signIn(victim.email, TEST_PASSWORD, "203.0.113.99");
    expect(limited.statusCode).toBe(429);
  });

  it("sign-ups from 'different' forwarded addresses share the real client's budget", async () => {
    for (let i = 0; i < 3; i++) expect((await c.signUp(uniqueEmail("off"), `198.51.100.${i}`)).statusCode).toBe(200);
    expect((await c.signUp(uniqueEmail("off"), "198.51.100.99")).statusCode).toBe(429);
  });

  it("records the connection's address with a new session, not the forwarded one", async () => {
    const user = await account(t);
    const res = await c.signIn(user.email, TEST_PASSWORD, "203.0.113.7");
    expect(res.statusCode).toBe(200);
    expect(await c.recordedAddress((res.json() as { token: string }).token)).toBe("127.0.0.1");
  });
});

describe("TRUST_PROXY=1: the proxy in front says who the client is", () => {
  const t = useTestApp({ limits, trustProxy: 1 });
  const c = client(t);

  it("gives two forwarded clients separate sign-in budgets", async () => {
    const victim = await account(t);
    for (let i = 0; i < 3; i++) expect((await c.signIn(victim.email, "wrong-password", "203.0.113.10")).statusCode).toBe(401);
    expect((await c.signIn(victim.email, TEST_PASSWORD, "203.0.113.10")).statusCode).toBe(429);
    // The victim, behind the same balancer, is not locked out by the attacker's attempts.
    expect((await c.signIn(victim.email, TEST_PASSWORD, "203.0.113.11")).statusCode).toBe(200);
  });

  it("gives two forwarded clients separate sign-up budgets", async () => {
    for (let i = 0; i < 3; i++) expect((await c.signUp(uniqueEmail("one"), "198.51.100.20")).statusCode).toBe(200);
    expect((await c.signUp(uniqueEmail("one"), "198.51.100.20")).statusCode).toBe(429);
    expect((await c.signUp(uniqueEmail("two"), "198.51.100.21")).statusCode).toBe(200);
  });

  it("takes the address the trusted hop forwarded, not what the client wrote before it", async () => {
    const user = await account(t);
    const res = await c.signIn(user.email, TEST_PASSWORD, "192.0.2.66, 203.0.113.30");
    expect(res.statusCode).toBe(200);
    expect(await c.recordedAddress((res.json() as { token: string }).token)).toBe("203.0.113.30");
  });
});

describe("TRUST_PROXY as addresses: only a listed peer's forwarding headers count", () => {
  const t = useTestApp({ limits, trustProxy: ["10.0.0.0/8", "127.0.0.1"] });
  const c = client(t);

  it("believes the listed proxy (here the loopback peer) and keeps forwarded clients apart", async () => {
    const victim = await account(t);
    for (let i = 0; i < 3; i++) expect((await c.signIn(victim.email, "wrong-password", "203.0.113.40")).statusCode).toBe(401);
    expect((await c.signIn(victim.email, TEST_PASSWORD, "203.0.113.40")).statusCode).toBe(429);
    const own = await c.signIn(victim.email, TEST_PASSWORD, "203.0.113.41");
    expect(own.statusCode).toBe(200);
    expect(await c.recordedAddress((own.json() as { token: string }).token)).toBe("203.0.113.41");
  });
});
