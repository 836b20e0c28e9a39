// issue X: a client that dribbled its headers or its body held its connection open indefinitely (still open
// after 130 s). Node's headersTimeout and requestTimeout now bound how long a request may take to arrive;
// they cover receiving the request only, so a long-lived answer (an SSE stream, the tRPC subscription)
// stays open past both. The timeouts are shortened here; defaultTimeouts in server/app.ts are the service's.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultTimeouts } from "../../server/app.js";
import { TEST_ORIGIN, type TestUser, useTestApp } from "../helpers/app.js";
import { nextCount, openSse, type SseStream } from "../helpers/sse.js";

const timeouts = { headersMs: 300, requestMs: 600, checkEveryMs: 50 };
/** Far past either timeout: a connection still open then was not closed by them. */
const GIVE_UP_MS = 10_000;

type Closed = { afterMs: number; answer: string };

/** Opens a raw connection, sends `start` and nothing more, and resolves once the server closes it. */
function dribble(port: number, start: string): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let began = 0;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${GIVE_UP_MS} ms`));
    }, GIVE_UP_MS);
    socket.on("connect", () => {
      began = Date.now();
      socket.write(start);
    });
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve({ afterMs: Date.now() - began, answer });
    });
  });
}

/** Closed by the timeout, not refused at once, with Node's 408 in the envelope when an answer could be sent. */
function expectTimedOut(closed: Closed, timeoutMs: number) {
  expect(closed.afterMs).toBeGreaterThanOrEqual(timeoutMs * 0.9);
  if (closed.answer) {
    expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.answer).toContain('{"success":false,"error":{"code":"VALIDATION_ERROR","message":"The request did not arrive in time"}}');
  }
}

describe("slow clients", () => {
  const t = useTestApp({ timeouts });
  let base: string;
  let port: number;
  const streams: SseStream[] = [];
  beforeAll(async () => {
    base = await t().app.listen({ port: 0, host: "127.0.0.1" });
    port = Number(new URL(base).port);
  });
  afterAll(() => {
    for (const s of streams) s.close();
  });
  const halfBody = () =>
    dribble(
      port,
      "POST /api/auth/sign-in/email HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n" +
        '{"email": "slow@test.local", ',
    );

  it("gives Node the timeouts, and by default closes a dribbling client within a minute", () => {
    expect([t().app.server.headersTimeout, t().app.server.requestTimeout]).toEqual([timeouts.headersMs, timeouts.requestMs]);
    expect(defaultTimeouts.headersMs).toBeLessThanOrEqual(defaultTimeouts.requestMs);
    expect(defaultTimeouts.requestMs + defaultTimeouts.checkEveryMs).toBeLessThanOrEqual(60_000);
  });

  it("a connection that sends half its headers and waits is closed after the headers timeout", async () => {
    expectTimedOut(await dribble(port, "GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n"), timeouts.headersMs);
  });

  it("a connection that sends its headers and half its body is closed after the request timeout", async () => {
    expectTimedOut(await halfBody(), timeouts.requestMs);
  });

  it("an SSE stream and the tRPC subscription stay open past both, and still carry changes", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const sse = await openSse(`${base}/api/notifications/stream`, user.headers);
    const trpc = await openSse(`${base}/trpc/notifications.onUnreadCount`, user.headers);
    streams.push(sse, trpc);
    expect(await nextCount(sse)).toBe(0);
    expect((await trpc.next()).event).toBeDefined();
    // Opened after the streams and closed by the request timeout: by then both streams are older than it.
    expectTimedOut(await halfBody(), timeouts.requestMs);
    await notify(admin, user);
    expect(await nextCount(sse)).toBe(1);
    // tRPC's stream sends its own events too (connected, the first count): the count of 1 comes among them.
    let event = await trpc.next();
    while (!event.data.includes('"count":1')) event = await trpc.next();
    expect(JSON.parse(event.data)).toEqual({ json: { count: 1 } });
  });

  const notify = async (admin: TestUser, target: TestUser) => {
    const res = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/in-app",
      headers: { ...admin.headers, origin: TEST_ORIGIN },
      payload: { type: "message.received", title: "Hello", targetUserId: target.id },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
});
