// docs/api.md#live-unread-count, on the real server process: an open stream does not hold shutdown open.
// SIGTERM ends every stream and the process exits 0 within seconds.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startServerProcess, useProcessDatabase } from "../helpers/server-process.js";
import { nextCount, openSse } from "../helpers/sse.js";

describe("live streams at shutdown (server/main.ts)", () => {
  const databaseEnv = useProcessDatabase();

  it("ends open streams on SIGTERM and exits 0 within seconds", async () => {
    const server = await startServerProcess(databaseEnv());
    const email = `stream-${randomBytes(4).toString("hex")}@test.local`;
    const signUp = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ name: "Stream", email, password: "correct-horse-battery" }),
    });
    const { token } = (await signUp.json()) as { token: string };
    const streams = await Promise.all(
      [1, 2, 3].map(() => openSse(`${server.url}/api/notifications/stream`, { authorization: `Bearer ${token}` })),
    );
    for (const s of streams) expect(await nextCount(s)).toBe(0);

    const started = Date.now();
    const exit = await server.stop();
    expect(exit.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const s of streams) await s.ended(1_000);
  });
});
