// What a start says (issue U.5), on the real server process: that it opens and migrates the database before
// anything else, whether an admin exists (and the command that makes one when none does), and where it serves
// and the console is; LOG_LEVEL=silent says nothing at all. `npm start`'s compile step says its one line first.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { testDbKind } from "../helpers/db.js";
import { startServerProcess, useProcessDatabase } from "../helpers/server-process.js";

const run = promisify(execFile);

/** The `msg` of each JSON log line, leaving out the per-request lines of the readiness polls. */
const messages = (output: string) =>
  output
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { msg: string; database?: string })
    .filter((line) => !["incoming request", "request completed"].includes(line.msg));

describe("start-up says what it does", () => {
  const databaseEnv = useProcessDatabase();
  const database = () => (testDbKind() === "pglite" ? `PGlite (${databaseEnv().PGLITE_DIR})` : "PostgreSQL");

  it("a first start without an admin: opening and migrating, no admin yet with the command that makes one, then where it serves and the console", async () => {
    const server = await startServerProcess({ ...databaseEnv(), LOG_LEVEL: "info" });
    try {
      const lines = messages(server.output());
      const stopFirst = testDbKind() === "pglite" ? "stop the server and " : "";
      expect(lines[0]).toEqual(
        expect.objectContaining({ msg: "starting: opening the database and applying migrations", database: database() }),
      );
      expect(lines.map((l) => l.msg)).toEqual([
        "starting: opening the database and applying migrations",
        `no admin account yet, so nobody can sign in to the console: start with ADMIN_EMAIL=you@example.com ADMIN_PASSWORD=<12+ characters> npm start, or ${stopFirst}run npm run db:seed`,
        `Server listening at ${server.url}`,
        `serving on ${server.url}; the operator console is at ${server.url}/console`,
      ]);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it("a start with ADMIN_EMAIL says it made the admin, and a later one how many admins there are", async () => {
    const env = { ...databaseEnv(), LOG_LEVEL: "info", ADMIN_EMAIL: "boot@example.com", ADMIN_PASSWORD: "a-long-admin-password" };
    for (const expected of [["created the admin account from ADMIN_EMAIL", "admin accounts: 1"], ["admin accounts: 1"]]) {
      const server = await startServerProcess(env);
      try {
        const said = messages(server.output()).map((l) => l.msg);
        expect(said.slice(1, -2)).toEqual(expected);
      } finally {
        await server.stop();
      }
    }
  }, 120_000);

  it("LOG_LEVEL=silent prints nothing, from start to stop", async () => {
    const server = await startServerProcess({ ...databaseEnv(), LOG_LEVEL: "silent" });
    await server.stop();
    const exit = await server.exited;
    expect({ code: exit.code, stdout: exit.stdout, stderr: exit.stderr }).toEqual({ code: 0, stdout: "", stderr: "" });
  }, 120_000);

  it("npm start's compile step says one line first, and nothing under LOG_LEVEL=silent", async () => {
    const notice = (LOG_LEVEL: string) => run(process.execPath, ["tools/start-notice.mjs"], { env: { ...process.env, LOG_LEVEL } });
    expect((await notice("info")).stdout).toBe(
      "compiling the service into build/ (what changed since the last build; up to a minute after an update)\n",
    );
    expect(await notice("silent")).toEqual({ stdout: "", stderr: "" });
  });
});
