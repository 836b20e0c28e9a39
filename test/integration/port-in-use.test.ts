// A port in use stops start-up with one line naming PORT (issue AD.6), before the database is opened or
// migrated: it printed a raw EADDRINUSE stack only after the migrations had run.
import { type AddressInfo, createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runUntilExit, useProcessDatabase } from "../helpers/server-process.js";

describe("a port in use", () => {
  const databaseEnv = useProcessDatabase();
  let occupant: Server;
  let port: number;

  beforeAll(async () => {
    occupant = createServer();
    await new Promise<void>((resolve) => occupant.listen(0, "127.0.0.1", resolve));
    port = (occupant.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => occupant.close(resolve));
  });

  it("stops start-up with one line naming PORT, before opening or migrating the database", async () => {
    const exit = await runUntilExit({ ...databaseEnv(), PORT: String(port), LOG_LEVEL: "info" });
    expect(exit.code).toBe(1);
    expect(exit.stderr).toBe(
      `PORT: 127.0.0.1:${port} is in use by another process; stop it, or start with another PORT (PORT=${port + 1} npm start)\n`,
    );
    // Nothing was said about the database, so nothing was opened or migrated first.
    expect(exit.stdout).toBe("");
  }, 60_000);
});
