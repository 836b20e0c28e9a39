// Delivery receipts (docs/api.md#delivery-receipts): the receipt a push carried, posted back with no session,
// records its display and click once; what is unknown, forged or expired is 404; the producer's event, the
// admin Deliveries view and the metrics show the funnel; the path is rate limited and open to the app's origin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { pushFunnel } from "../../server/observability/metrics.js";
import { receiptTokens } from "../../server/push/receipt-token.js";
import { type LocalPushService, startPushService } from "../../tools/local-push-service.js";
import { useTestApp } from "../helpers/app.js";
import { type EventStatus, eventFor, producer } from "../helpers/producers.js";
import { subscribeAt } from "../helpers/push.js";
import { waitFor } from "../helpers/wait.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const APP = "https://app.example.com";

describe("delivery receipts", () => {
  const t = useTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 300 },
    deliveries: { pollMs: 50 },
    appBaseUrl: APP,
    limits: { receipts: { max: 40, timeWindowMs: 60_000 } },
  });
  const p = producer(t);
  let pushService: LocalPushService;
  beforeAll(async () => {
    pushService = await startPushService();
  });
  afterAll(async () => {
    await pushService?.close();
  });

  const report = (body: unknown, headers: Record<string, string> = {}) =>
    t().app.inject({
      method: "POST",
      url: "/api/notifications/receipts",
      headers: { "content-type": "application/json", ...headers },
      payload: JSON.stringify(body),
    });

  /** An event sent and accepted; the receipt its push carried, as the service worker reads it. */
  async function delivered() {
    const key = await p.key();
    const user = await t().signUp();
    const sub = await subscribeAt(t(), user, pushService.endpoint(201));
    const event = eventFor(user.id);
    await p.results(key, [event]);
    await waitFor(
      async () => (await p.status(key, event.eventId)).json().data as EventStatus,
      (s) => s.deliveries[0]?.status === "sent",
      {
        withinMs: 10_000,
        what: "the push sent",
      },
    );
    const [received] = pushService.received.filter((r) => sub.endpoint.endsWith(r.path));
    const payload = sub.subscriber.decrypt(received!.body) as { data: { receipt: string }; notification: { navigate: string } };
    const status = async () => (await p.status(key, event.eventId)).json().data as EventStatus;
    return { receipt: payload.data.receipt, navigate: payload.notification.navigate, status, event, user };
  }

  const stage = async (name: string) => (await pushFunnel.get()).values.find((v) => v.labels.stage === name)?.value ?? 0;

  it("records displayed then clicked once each, with no session; the event shows both and its funnel", async () => {
    const { receipt, navigate, status } = await delivered();
    expect(new URL(navigate).searchParams.get("push_receipt")).toBe(receipt);
    const [displayedBefore, clickedBefore] = [await stage("displayed"), await stage("clicked")];

    expect((await report({ receipt, stage: "displayed" })).statusCode).toBe(204);
    const displayedAt = (await status()).deliveries[0]!.displayedAt;
    expect(displayedAt).toEqual(expect.any(String));
    // A repeat is answered the same and changes nothing.
    expect((await report({ receipt, stage: "displayed" })).statusCode).toBe(204);
    expect((await status()).deliveries[0]!.displayedAt).toBe(displayedAt);

    expect((await report({ receipt, stage: "clicked" })).statusCode).toBe(204);
    expect((await report({ receipt, stage: "clicked" })).statusCode).toBe(204);
    const after = await status();
    expect(after.deliveries[0]).toMatchObject({ status: "sent", displayedAt, clickedAt: expect.any(String) });
    expect(after.funnel).toMatchObject({
      queued: { count: 1 },
      accepted: { count: 1, firstAt: after.deliveries[0]!.sentAt },
      displayed: { count: 1, firstAt: displayedAt },
      clicked: { count: 1, firstAt: after.deliveries[0]!.clickedAt },
      superseded: 0,
    });
    expect([await stage("displayed"), await stage("clicked")]).toEqual([displayedBefore + 1, clickedBefore + 1]);
  });

  it("a click with no display reported (a declarative push shows with no code) records the display too", async () => {
    const { receipt, status } = await delivered();
    expect((await report({ receipt, stage: "clicked" })).statusCode).toBe(204);
    const [delivery] = (await status()).deliveries;
    expect(delivery!.displayedAt).toBe(delivery!.clickedAt);
    expect(delivery!.clickedAt).toEqual(expect.any(String));
  });

  it("unknown, forged, expired or another key's receipts are 404; a body that is not a receipt is 400", async () => {
    const { receipt } = await delivered();
    const tokens = receiptTokens(vapid.privateKey);
    const expired = tokens.sign(crypto.randomUUID(), new Date(Date.now() - 1000));
    const unknown = tokens.sign(crypto.randomUUID(), new Date(Date.now() + 60_000));
    const otherKey = receiptTokens(webpush.generateVAPIDKeys().privateKey).sign(crypto.randomUUID(), new Date(Date.now() + 60_000));
    const forged = `${receipt.slice(0, -2)}${receipt.endsWith("AA") ? "BB" : "AA"}`;
    for (const bad of [expired, unknown, otherKey, forged, "nonsense"]) {
      const res = await report({ receipt: bad, stage: "displayed" });
      expect(res.statusCode, bad).toBe(404);
      expect(res.json()).toEqual({ success: false, error: { code: "NOT_FOUND", message: "Receipt not found or expired" } });
    }
    for (const body of [{ receipt }, { receipt, stage: "opened" }, { receipt, stage: "clicked", extra: 1 }, { stage: "clicked" }]) {
      expect((await report(body)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it("is open to the app's origin without credentials, and to no other", async () => {
    const preflight = (origin: string) =>
      t().app.inject({
        method: "OPTIONS",
        url: "/api/notifications/receipts",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
    const fromApp = await preflight(APP);
    expect(fromApp.headers["access-control-allow-origin"]).toBe(APP);
    expect(fromApp.headers["access-control-allow-credentials"]).toBeUndefined();
    expect((await preflight("https://evil.example")).headers["access-control-allow-origin"]).toBeUndefined();
    // The report itself: the app's origin may read it, without credentials or the API's exposed headers
    // (the route's own CORS options, merged over the API's since issue AE).
    const answer = await report({ receipt: "x".repeat(10) }, { origin: APP });
    expect(answer.headers["access-control-allow-origin"]).toBe(APP);
    expect(answer.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(answer.headers["access-control-expose-headers"]).toBeUndefined();
    // Every other path keeps CORS_ORIGINS, with credentials.
    const elsewhere = await t().app.inject({
      method: "OPTIONS",
      url: "/api/notifications/events",
      headers: { origin: APP, "access-control-request-method": "POST" },
    });
    expect(elsewhere.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("the admin Deliveries view shows each event's funnel and each producer's", async () => {
    const { receipt, event } = await delivered();
    await report({ receipt, stage: "clicked" });
    const admin = await t().signUp({ admin: true });
    const { events, producers } = await t().caller(admin).deliveries.recent({ userId: event.userId });
    expect(events[0]!.funnel).toMatchObject({
      queued: { count: 1 },
      accepted: { count: 1 },
      displayed: { count: 1 },
      clicked: { count: 1 },
    });
    expect(events[0]!.deliveries[0]).toMatchObject({ displayedAt: expect.any(Date), clickedAt: expect.any(Date), topic: null });
    expect(producers).toEqual([
      expect.objectContaining({ funnel: expect.objectContaining({ clicked: expect.objectContaining({ count: 1 }) }) }),
    ]);
    expect(producers[0]!.medianSeconds.clicked).toEqual(expect.any(Number));
  });

  it("is rate limited per client address", async () => {
    let answer = 0;
    for (let i = 0; i < 60 && answer !== 429; i++) answer = (await report({ receipt: "nonsense", stage: "displayed" })).statusCode;
    expect(answer).toBe(429);
  });
});
