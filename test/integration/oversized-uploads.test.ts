// An upload answered before its body has arrived (413 over the 1 MiB limit, 415 for a body that is not JSON)
// reaches its client: the rest of the body is read and dropped, so the socket is not reset under the
// client while it is still sending (issue K: under load, a 413 was often an EPIPE or ECONNRESET). The
// server is a process of its own, as in production: in the test's own process client and server share one
// event loop, which hid the reset.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess, useProcessDatabase } from "../helpers/server-process.js";

const database = useProcessDatabase();
let server: ServerProcess;
let port: number;
beforeAll(async () => {
  server = await startServerProcess({ ...database(), SIGN_UP: "open" });
  port = Number(new URL(server.url).port);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** Sends `size` bytes as fast as the socket takes them; resolves to the status read, or the socket's error. */
function upload(headers: Record<string, string>, size: number, declareLength: boolean): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/admin/restriction/cohorts",
        agent: false,
        headers: { ...headers, ...(declareLength ? { "content-length": String(size) } : {}) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(String(res.statusCode)));
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    const chunk = Buffer.alloc(64 * 1024, "a");
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

function tally(answers: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a] = (counts[a] ?? 0) + 1;
  return counts;
}

describe("uploads answered before their body has arrived", () => {
  it("forty 4 MiB uploads at once, with and without a declared length: every client reads its 413", async () => {
    // No session is needed: the size is judged before anyone is.
    const headers = { authorization: "Bearer not-checked-yet", "content-type": "application/json" };
    for (const declareLength of [true, false]) {
      const answers = await Promise.all(Array.from({ length: 40 }, () => upload(headers, 4 * 1024 * 1024, declareLength)));
      expect({ declareLength, answers: tally(answers) }).toEqual({ declareLength, answers: { "413": 40 } });
    }
  });

  it("a body that is not JSON: every client reads its 415", async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        upload({ authorization: "Bearer not-checked-yet", "content-type": "text/plain" }, 4 * 1024 * 1024, true),
      ),
    );
    expect(tally(answers)).toEqual({ "415": 40 });
  });
});
