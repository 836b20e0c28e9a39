// docs/operators.md#who-may-become-an-admin, on the real server process: ADMIN_EMAIL / ADMIN_PASSWORD make the
// first admin before the port opens (on PGlite and PostgreSQL alike), a restart changes nothing, an
// address that already belongs to an ordinary account stops start-up with one line, and in production
// PLATFORM_ADMIN_EMAILS grants nothing.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { runUntilExit, startServerProcess, useProcessDatabase } from "../helpers/server-process.js";

const PASSWORD = "a-long-admin-password";
const suffix = randomBytes(4).toString("hex");
const OPS = `ops-${suffix}@example.com`;
const LISTED = `listed-${suffix}@example.com`;
const ORDINARY = `ordinary-${suffix}@example.com`;

async function call(url: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      origin: url,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const signIn = async (url: string, email: string, password = PASSWORD) =>
  (await call(url, "POST", "/api/auth/sign-in/email", { email, password })).body.token as string;

describe("admin bootstrap at start-up (server/main.ts)", () => {
  const databaseEnv = useProcessDatabase();

  const production = () => ({
    ...databaseEnv(),
    NODE_ENV: "production",
    ADMIN_EMAIL: OPS,
    ADMIN_PASSWORD: PASSWORD,
    ADMIN_NAME: "Ops",
    PLATFORM_ADMIN_EMAILS: LISTED,
  });

  it("creates the admin before the port opens; in production a listed address signs up as an ordinary user", async () => {
    const server = await startServerProcess(production());
    try {
      const token = await signIn(server.url, OPS);
      const active = await call(server.url, "GET", "/api/admin/restriction/", undefined, token);
      expect(active).toEqual({ status: 200, body: { success: true, data: [] } });

      const listed = await call(server.url, "POST", "/api/auth/sign-up/email", { name: "Listed", email: LISTED, password: PASSWORD });
      expect(listed.status).toBe(200);
      expect((listed.body.user as { role: string }).role).toBe("user");
      const refused = await call(server.url, "GET", "/api/admin/restriction/", undefined, listed.body.token as string);
      expect(refused.status).toBe(403);

      const ordinary = await call(server.url, "POST", "/api/auth/sign-up/email", { name: "Ordinary", email: ORDINARY, password: PASSWORD });
      expect(ordinary.status).toBe(200);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  });

  it("is idempotent on restart: the same account stays the admin, its password unchanged", async () => {
    const server = await startServerProcess({ ...production(), ADMIN_PASSWORD: "another-password-entirely" });
    try {
      const token = await signIn(server.url, OPS);
      expect(token).toEqual(expect.any(String));
      expect((await call(server.url, "GET", "/api/admin/restriction/cohorts", undefined, token)).status).toBe(200);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  });

  it("refuses to promote an existing ordinary account: exits non-zero with one line naming ADMIN_EMAIL", async () => {
    const exit = await runUntilExit({ ...production(), ADMIN_EMAIL: ORDINARY });
    expect(exit.code).not.toBe(0);
    const lines = exit.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ADMIN_EMAIL: .*not an admin/);

    // Nothing changed: the ordinary account is still ordinary once the server runs again.
    const server = await startServerProcess(production());
    try {
      const token = await signIn(server.url, ORDINARY);
      expect((await call(server.url, "GET", "/api/admin/restriction/", undefined, token)).status).toBe(403);
    } finally {
      await server.stop();
    }
  });

  it("stops with one line when ADMIN_PASSWORD is too short", async () => {
    const exit = await runUntilExit({ ...databaseEnv(), ADMIN_EMAIL: OPS, ADMIN_PASSWORD: "short" });
    expect(exit.code).not.toBe(0);
    expect(exit.stderr.trim()).toBe("ADMIN_PASSWORD: must be at least 12 characters");
  });
});
