// Requests Node's HTTP parser refuses before any route sees them (headers over the size limit, a malformed
// header line) are answered in the service's envelope too (docs/api.md#errors), not Node's or Fastify's own
// body. Sent over a bare socket: fetch and app.inject would refuse or repair such requests themselves.
import { connect } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";

type RawAnswer = { status: number; headers: Record<string, string>; body: string };

/** Writes `request` as is and reads until the server closes the connection. */
function rawExchange(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const [head = "", body = ""] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()] as const),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
    socket.end(request);
  });
}

describe("answers to requests the HTTP parser refuses", () => {
  const t = useTestApp();
  let port: number;
  beforeAll(async () => {
    await t().app.listen({ port: 0, host: "127.0.0.1" });
    port = (t().app.server.address() as { port: number }).port;
  });

  it("headers over the limit: 431 in the envelope", async () => {
    const answer = await rawExchange(port, `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
    expect(JSON.parse(answer.body)).toEqual({
      success: false,
      error: { code: "PAYLOAD_TOO_LARGE", message: "The request's headers are too large" },
    });
  });

  it.each([
    ["a header line without a colon", "GET /health/live HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n"],
    ["a control character in a header value", "GET /health/live HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n"],
    ["a request line that is not HTTP", "HELLO\r\n\r\n"],
    ["two content lengths that disagree", "POST /health/live HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"],
  ])("%s: 400 VALIDATION_ERROR in the envelope", async (_what, request) => {
    const answer = await rawExchange(port, request);
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(answer.body)).toEqual({
      success: false,
      error: { code: "VALIDATION_ERROR", message: "The request is not well-formed HTTP" },
    });
  });

  it("a well-formed request on the same server is answered as ever", async () => {
    const answer = await rawExchange(port, "GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(answer.status).toBe(200);
  });
});
