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
const { PushApiModel } = require("web-push-testing/src/PushApiModel.js") as { PushApiModel: new () => object };
const WebPushTestingServer = require("web-push-testing/src/server.js") as new (
  model: object,
  port: number,
) => { startServer(): void; _server: { close(cb: () => void): void; address(): AddressInfo | string | null } };

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

describe("push delivery to web-push-testing", () => {
  const t = useTestApp({ push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true }, deliveries: { pollMs: 50 } });
  const p = producer(t);
  let server: InstanceType<typeof WebPushTestingServer>;
  let origin: string;
  beforeAll(async () => {
    const port = await freePort();
    server = new WebPushTestingServer(new PushApiModel(), port);
    server.startServer();
    origin = `http://127.0.0.1:${port}`;
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
    const user = await t().signUp();
    const subscribed = await t().app.inject({
      method: "POST",
      url: "/api/notifications/subscriptions",
      headers: user.headers,
      // The mock names itself localhost; the service's test resolver knows only addresses.
      payload: {
        endpoint: subscription.endpoint.replace("localhost", "127.0.0.1"),
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
    expect((received.messages as string[]).map((m) => JSON.parse(m))).toEqual([
      { title: "Payment received", body: "€120 from Ana", url: "/billing/77" },
    ]);
  });
});
