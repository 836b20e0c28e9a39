// A producer's push through the durable queue to web-push-testing (npm), the push service mock the web-push
// libraries test against: it checks the VAPID signature against the subscription's applicationServerKey,
// decrypts the aes128gcm payload as a browser would, and keeps the message for us to read.
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { useTestApp } from "../helpers/app.js";
import { freePort } from "../helpers/net.js";
import { type EventStatus, eventFor, producer } from "../helpers/producers.js";
import { waitFor } from "../helpers/wait.js";

const require = createRequire(import.meta.url);
const { PushApiModel } = require("web-push-testing/src/PushApiModel.js") as { PushApiModel: new () => { notifyUrl: string } };
type Listening = { close(cb: () => void): void; address(): AddressInfo | string | null };
const WebPushTestingServer = require("web-push-testing/src/server.js") as new (
  model: object,
  port: number,
) => {
  _app: { listen(port: number, host: string, cb: () => void): Listening };
  _server: Listening;
  setRequestHandlers(): void;
};

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("push delivery to web-push-testing", () => {
  const t = useTestApp({ push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true }, deliveries: { pollMs: 50 } });
  const p = producer(t);
  let server: InstanceType<typeof WebPushTestingServer>;
  let origin: string;
  beforeAll(async () => {
    const port = await freePort();
    const model = new PushApiModel();
    server = new WebPushTestingServer(model, port);
    // startServer() would listen on every interface: this push service is for this machine only.
    origin = `http://127.0.0.1:${port}`;
    await new Promise<void>((resolve) => {
      server._server = server._app.listen(port, "127.0.0.1", resolve);
    });
    server.setRequestHandlers();
    // The endpoints it hands out name the address it listens on (its own default says localhost).
    model.notifyUrl = `${origin}/notify/`;
    expect(server._server.address()).toMatchObject({ address: "127.0.0.1" });
    await waitFor(
      async () => (await fetch(`${origin}/status`, { method: "POST" }).catch(() => null))?.status,
      (s) => s === 200,
      {
        withinMs: 5000,
        what: "web-push-testing up",
      },
    );
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server?._server.close(() => resolve()));
  });

  const post = async (path: string, body: unknown) =>
    (
      await fetch(`${origin}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    ).json() as Promise<{
      data: Record<string, unknown>;
    }>;

  it("the mock push service verifies, decrypts and keeps the event's {title, body, url}", async () => {
    const { data } = await post("/subscribe", { userVisibleOnly: "true", applicationServerKey: vapid.publicKey });
    const subscription = data as { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string };
    // Only on loopback: the service is never handed an endpoint outside this machine.
    expect(subscription.endpoint.startsWith(`${origin}/notify/`)).toBe(true);
    const user = await t().signUp();
    const subscribed = await t().app.inject({
      method: "POST",
      url: "/api/notifications/subscriptions",
      headers: user.headers,
      payload: {
        endpoint: subscription.endpoint,
        p256dh: subscription.keys.p256dh,
        auth: subscription.keys.auth,
      },
    });
    expect(subscribed.statusCode).toBe(200);

    const key = await p.key();
    const event = eventFor(user.id, { title: "Payment received", body: "€120 from Ana", url: "/billing/77", type: "payment.received" });
    expect((await p.results(key, [event]))[0]).toMatchObject({ status: "created", push: 1 });
    const status = await waitFor(
      async () => (await p.status(key, event.eventId)).json().data as EventStatus,
      (s) => s.deliveries[0]?.status !== "queued",
      { withinMs: 10_000, what: "the delivery settled" },
    );
    expect(status.deliveries[0]).toMatchObject({ status: "sent", lastStatusCode: 201 });
    const { data: received } = await post("/get-notifications", { clientHash: subscription.clientHash });
    expect((received.messages as string[]).map((m) => JSON.parse(m))).toMatchObject([
      { title: "Payment received", body: "€120 from Ana", url: "/billing/77" },
    ]);
  });
});
