// A test push to Apple's push service is never sent with a VAPID subject it refuses (docs/api.md#web-push-keys):
// web.push.apple.com resolves here to a listener on 127.0.0.1 that counts connections. With a placeholder subject
// nothing connects and the result names VAPID_SUBJECT; with a real one the same push does connect.
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { type TestApp, useTestApp } from "../helpers/app.js";
import { tableLookup } from "../helpers/dns.js";

const keys = webpush.generateVAPIDKeys();
let connections = 0;
let listener: Server;
let port = 0;
const sockets: Socket[] = [];

beforeAll(async () => {
  listener = createServer((socket) => {
    connections++;
    sockets.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

const pushOptions = (subject: string) => ({
  vapid: { ...keys, subject },
  allowPrivateEndpoints: true,
  timeoutMs: 2000,
  lookup: tableLookup({ "web.push.apple.com": ["127.0.0.1"] }),
});

async function testPushToApple(app: TestApp) {
  const admin = await app.signUp({ admin: true });
  const subscriber = makeSubscriber();
  const endpoint = `https://web.push.apple.com:${port}/QAbc${Date.now()}`;
  const subscribed = await app.app.inject({
    method: "POST",
    url: "/api/notifications/subscriptions",
    headers: admin.headers,
    payload: { endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth },
  });
  expect(subscribed.statusCode, subscribed.body).toBe(200);
  const res = await app.app.inject({
    method: "POST",
    url: "/api/notifications/test/push",
    headers: admin.headers,
    payload: { type: "system.test", title: "Hi", targetUserId: admin.id },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { sent: number; failed: number; results: { ok: boolean; statusCode: number | null; error?: string }[] };
}

describe("a VAPID subject Apple refuses", () => {
  const t = useTestApp({ push: pushOptions("mailto:ops@example.test") });
  it("is never sent to web.push.apple.com: the result names VAPID_SUBJECT, and nothing connected", async () => {
    const before = connections;
    const result = await testPushToApple(t());
    expect(result).toMatchObject({ sent: 0, failed: 1 });
    expect(result.results[0]).toMatchObject({
      ok: false,
      statusCode: null,
      error: expect.stringMatching(/refuses the VAPID subject "mailto:ops@example\.test" \(403 BadJwtToken\); set VAPID_SUBJECT/),
    });
    expect(connections).toBe(before);
  });
});

describe("a VAPID subject Apple takes", () => {
  const t = useTestApp({ push: pushOptions("mailto:ops@example.com") });
  it("is sent: the same push connects (and fails there, as no TLS answers)", async () => {
    const before = connections;
    const result = await testPushToApple(t());
    expect(result.results[0]).toMatchObject({ ok: false, statusCode: null });
    expect(result.results[0]!.error).not.toMatch(/VAPID_SUBJECT/);
    expect(connections).toBeGreaterThan(before);
  });
});
