// `npm run example` with no service where it looks (issue AD.6): it printed only `fetch failed`. It names the
// URL it tried and how to point it elsewhere, and takes the server's PORT, as `npm start` does.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/net.js";

const run = promisify(execFile);

/** Runs the example to its end; it is expected to fail. */
async function example(args: string[], env: Record<string, string>) {
  const { API_URL: _url, PORT: _port, ...inherited } = process.env;
  try {
    await run(process.execPath, ["--import", "tsx", "client-example/index.ts", ...args], {
      env: { ...inherited, ...env },
      timeout: 30_000,
    });
  } catch (err) {
    const { code, stderr } = err as { code: number; stderr: string };
    return { code, stderr };
  }
  throw new Error("the example succeeded with no service to reach");
}

describe("client example, no service where it looks", () => {
  it("honours PORT and names the URL it tried and how to point it elsewhere, on one line", async () => {
    const port = await freePort();
    const { code, stderr } = await example([], { PORT: String(port) });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `Cannot reach the service at http://127.0.0.1:${port} (ECONNREFUSED). Is it running? Point the example at it with --url http://HOST:PORT, API_URL, or PORT.\n`,
    );
  });

  it("--url wins over API_URL and PORT, and is the URL named", async () => {
    const port = await freePort();
    const { stderr } = await example(["--url", `http://127.0.0.1:${port}`], { PORT: "1", API_URL: "http://127.0.0.1:2" });
    expect(stderr).toMatch(new RegExp(`^Cannot reach the service at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
  });
});
