// One admin account story across the scripts and start-up (issue U.1), as real processes on one database
// (PGlite folder or PostgreSQL): `npm run db:seed` takes ADMIN_EMAIL / ADMIN_PASSWORD, start-up with another
// ADMIN_PASSWORD says so in one line with the command, and `npm run admin:reset-password` sets the password,
// ends the sessions and is audited, refusing while a server holds the embedded folder.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { passwordMismatchLine } from "../../server/auth/admin-bootstrap.js";
import { testDbKind } from "../helpers/db.js";
import { runToExit, SEED } from "../helpers/db-script.js";
import { type ServerProcess, startServerProcess, useProcessDatabase } from "../helpers/server-process.js";

const RESET = "tools/admin-reset-password.ts";
const OPS = `ops-${randomBytes(4).toString("hex")}@example.com`;
const FIRST = "the-first-long-password";
const SECOND = "the-second-long-password";
const embedded = testDbKind() === "pglite";

async function signIn(server: ServerProcess, email: string, password: string) {
  const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { origin: server.url, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  return { status: res.status, token: res.ok ? ((await res.json()) as { token: string }).token : null };
}

const get = async (server: ServerProcess, path: string, token: string | null) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

/** The mismatch line as start-up logs it (pino's JSON, LOG_LEVEL=warn in the test processes). */
const mismatch = `"msg":"${passwordMismatchLine(OPS, embedded)}"`;

describe("the admin account: seed, start-up and admin:reset-password tell one story", () => {
  const databaseEnv = useProcessDatabase();
  const env = (password: string) => ({ ...databaseEnv(), ADMIN_EMAIL: OPS.toUpperCase(), ADMIN_PASSWORD: password });

  it("the seed makes the ADMIN_EMAIL account with ADMIN_PASSWORD, names the password without printing it, and start-up then signs it in silently", async () => {
    const seed = await runToExit(SEED, env(FIRST));
    expect({ code: seed.code, stderr: seed.stderr }).toEqual({ code: 0, stderr: "" });
    expect(seed.stdout).toMatch(new RegExp(`\\n  admin  ${OPS} / the password in ADMIN_PASSWORD  \\(id [0-9a-f-]{36}, made now\\)\\n`));
    expect(seed.stdout).not.toContain(FIRST);
    expect(seed.stdout).not.toContain("admin@example.com"); // the demo admin is not made beside it

    const server = await startServerProcess(env(FIRST));
    try {
      expect((await signIn(server, OPS, FIRST)).status).toBe(200);
      expect((await signIn(server, "admin@example.com", "admin-password-123")).status).toBe(401);
      expect(server.output()).not.toContain("ADMIN_PASSWORD is not its password");
    } finally {
      await server.stop();
    }
    // Seeding again with another password keeps the account's and says so, naming the command.
    const again = await runToExit(SEED, env(SECOND));
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `  admin  ${OPS}: the password in ADMIN_PASSWORD is not its password, which the seed keeps (npm run admin:reset-password sets it)`,
    );
    expect(again.stdout).not.toContain(SECOND);
  }, 180_000);

  it("start-up with another ADMIN_PASSWORD keeps the password and says so in one line; the reset refuses beside it on PGlite, and works beside it on PostgreSQL", async () => {
    const server = await startServerProcess(env(SECOND));
    try {
      expect(server.output().split(mismatch)).toHaveLength(2); // exactly once
      const first = await signIn(server, OPS, FIRST);
      expect(first.status).toBe(200);
      expect((await signIn(server, OPS, SECOND)).status).toBe(401);

      const reset = await runToExit(RESET, env(SECOND));
      if (embedded) {
        expect({ code: reset.code, stdout: reset.stdout, stderr: reset.stderr }).toEqual({
          code: 1,
          stdout: "",
          stderr: `PGLITE_DIR ${databaseEnv().PGLITE_DIR} is in use by process ${server.pid}: stop it first, one process at a time may open an embedded database folder\n`,
        });
        expect((await get(server, "/api/notifications/unread-count", first.token)).status).toBe(200);
        expect((await signIn(server, OPS, FIRST)).status).toBe(200);
      } else {
        // PostgreSQL: the running server sees the new password, and the session the reset ended is gone.
        expect({ code: reset.code, stderr: reset.stderr }).toEqual({ code: 0, stderr: "" });
        expect((await get(server, "/api/notifications/unread-count", first.token)).status).toBe(401);
        expect((await signIn(server, OPS, SECOND)).status).toBe(200);
      }
    } finally {
      await server.stop();
    }
  }, 180_000);

  it("admin:reset-password sets the password, ends the sessions and is audited; the next start-up has nothing to say", async () => {
    const reset = await runToExit(RESET, env(SECOND));
    expect({ code: reset.code, stderr: reset.stderr }).toEqual({ code: 0, stderr: "" });
    expect(reset.stdout).toMatch(
      new RegExp(`^(PGlite in .+|PostgreSQL): ${OPS} now signs in with the password in ADMIN_PASSWORD; \\d+ sessions? ended\\.\\n`),
    );
    expect(reset.stdout).not.toContain(SECOND);

    const server = await startServerProcess(env(SECOND));
    try {
      expect(server.output()).not.toContain("ADMIN_PASSWORD is not its password");
      expect((await signIn(server, OPS, FIRST)).status).toBe(401);
      const { status, token } = await signIn(server, OPS, SECOND);
      expect(status).toBe(200);
      const audit = await get(server, "/api/admin/audit?action=user.set_password", token);
      const { data } = (await audit.json()) as { data: { events: { actor: { email: string }; details: unknown }[] } };
      expect(data.events.length).toBeGreaterThanOrEqual(1);
      expect(data.events[0]).toMatchObject({ actor: { email: OPS }, details: { via: "npm run admin:reset-password" } });
    } finally {
      await server.stop();
    }
  }, 180_000);

  it("bad input gets its one line and changes nothing", async () => {
    const cases = [
      [{ ...env("short") }, "ADMIN_PASSWORD: must be at least 12 characters\n"],
      [{ ...env(FIRST), ADMIN_EMAIL: "not-an-address" }, "ADMIN_EMAIL: must be an e-mail address\n"],
      [{ ...env(FIRST), ADMIN_EMAIL: "nobody-at-all@example.com" }, "no account has the address nobody-at-all@example.com"],
      [{ ...databaseEnv(), ADMIN_EMAIL: "", ADMIN_PASSWORD: "" }, "ADMIN_EMAIL (or --email): required"],
    ] as const;
    for (const [given, says] of cases) {
      const run = await runToExit(RESET, given);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: "" });
      expect(run.stderr).toContain(says);
    }
    // The password is still the one the last reset set.
    const server = await startServerProcess(env(SECOND));
    try {
      expect((await signIn(server, OPS, SECOND)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 180_000);
});
