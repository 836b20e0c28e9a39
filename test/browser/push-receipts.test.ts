// A real service worker shows a push and reports its display and click (docs/api.md#delivery-receipts), in
// Chromium. Offline, Chromium cannot subscribe to its own push service (FCM), so the service sends to the local
// push service (tools/local-push-service.ts), and the bytes it decrypted there are handed to the service
// worker's push event through DevTools (ServiceWorker.deliverPushMessage): the push event, showNotification,
// and the worker's fetch of the receipt are Chromium's own. No API clicks a notification in a headless browser,
// so the click is the worker's own `clicked` (what its notificationclick runs) called on the notification
// Chromium shows. The page a declarative push opens reports its click from `navigate`'s push_receipt.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { type LocalPushService, startPushService } from "../../tools/local-push-service.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { type EventStatus, eventFor, producer } from "../helpers/producers.js";
import { subscribeAt } from "../helpers/push.js";
import { waitFor } from "../helpers/wait.js";
import { chromiumFound, launchChromium } from "./chromium.js";

const SW = readFileSync(new URL("../../client-example/sw.js", import.meta.url), "utf8");
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

/** The app's page: registers the sample worker, and reports a click when opened from a declarative push. */
const page = (api: string) => `<!doctype html><html lang="en"><title>App</title><body><script>
  const receipt = new URLSearchParams(location.search).get("push_receipt");
  window.clickReported = receipt
    ? fetch(${JSON.stringify(api)} + "/api/notifications/receipts", { method: "POST", credentials: "omit",
        headers: { "content-type": "application/json" }, body: JSON.stringify({ receipt, stage: "clicked" }) }).then((r) => r.status)
    : null;
  window.registered = navigator.serviceWorker.register("/sw.js?api=" + encodeURIComponent(${JSON.stringify(api)})).then(() => navigator.serviceWorker.ready).then(() => "ready");
</script></body></html>`;

describe.skipIf(!chromiumFound())("a service worker reports display and click", () => {
  let appServer: Server;
  let appOrigin: string;
  let service: TestApp;
  let apiOrigin: string;
  let pushService: LocalPushService;
  let browser: Browser;
  let context: BrowserContext;
  let tab: Page;

  beforeAll(async () => {
    appServer = createServer((req, res) => {
      const path = (req.url ?? "/").split("?")[0];
      if (path === "/sw.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(SW);
      res.writeHead(200, { "content-type": "text/html" }).end(page(apiOrigin));
    });
    await new Promise<void>((resolve) => appServer.listen(0, "127.0.0.1", resolve));
    appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
    pushService = await startPushService();
    service = await createTestApp({
      push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true },
      deliveries: { pollMs: 50 },
      appBaseUrl: appOrigin,
    });
    apiOrigin = await service.app.listen({ port: 0, host: "127.0.0.1" });
    browser = await launchChromium();
    context = await browser.newContext();
    await context.grantPermissions(["notifications"], { origin: appOrigin });
    tab = await context.newPage();
    await tab.goto(`${appOrigin}/`);
    expect(await tab.evaluate(() => (window as unknown as { registered: Promise<string> }).registered)).toBe("ready");
  });
  afterAll(async () => {
    await browser?.close();
    await service?.app.close();
    await service?.db.close();
    await pushService?.close();
    await new Promise((resolve) => appServer?.close(resolve));
  });

  /** A producer's event pushed to the local push service; the body as the browser would decrypt it. */
  async function pushed(fields: Record<string, unknown>) {
    const p = producer(() => service);
    const key = await p.key();
    const user = await service.signUp();
    const sub = await subscribeAt(service, user, pushService.endpoint(201));
    const event = eventFor(user.id, fields);
    await p.results(key, [event]);
    const status = () => p.status(key, event.eventId).then((r) => r.json().data as EventStatus);
    await waitFor(status, (s) => s.deliveries[0]?.status === "sent", { withinMs: 10_000, what: "the push sent" });
    const [received] = pushService.received.filter((r) => sub.endpoint.endsWith(r.path));
    return { json: JSON.stringify(sub.subscriber.decrypt(received!.body)), status };
  }

  it("shows the push from its payload and reports displayed, then clicked", async () => {
    const { json, status } = await pushed({ title: "Ana wrote", body: "Tuesday?", url: "/inbox/9" });
    const cdp = await context.newCDPSession(tab);
    const registration = new Promise<string>((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL.startsWith(appOrigin) && !r.isDeleted);
        if (ours) resolve(ours.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.deliverPushMessage", { origin: appOrigin, registrationId: await registration, data: json });

    const displayed = await waitFor(status, (s) => s.deliveries[0]?.displayedAt !== null, {
      withinMs: 10_000,
      what: "the display reported",
    });
    expect(displayed.deliveries[0]!.clickedAt).toBeNull();
    const [worker] = context.serviceWorkers();
    const shown = await worker!.evaluate(async () => {
      const [n] = await (self as unknown as { registration: ServiceWorkerRegistration }).registration.getNotifications();
      return { title: n!.title, body: n!.body, data: n!.data as { navigate: string } };
    });
    expect(shown).toMatchObject({
      title: "Ana wrote",
      body: "Tuesday?",
      data: { navigate: expect.stringMatching(`^${appOrigin}/inbox/9\\?push_receipt=`) },
    });

    // The worker's own click handling, on the notification Chromium shows (openWindow needs a real click: caught).
    await worker!.evaluate(async () => {
      const scope = self as unknown as { registration: ServiceWorkerRegistration; clicked(n: Notification): Promise<void> };
      const [n] = await scope.registration.getNotifications();
      await scope.clicked(n!).catch(() => {});
    });
    const clicked = await waitFor(status, (s) => s.deliveries[0]?.clickedAt !== null, { withinMs: 10_000, what: "the click reported" });
    expect(clicked.funnel).toMatchObject({ accepted: { count: 1 }, displayed: { count: 1 }, clicked: { count: 1 } });
  });

  it("the page a declarative push opens reports the click from navigate's receipt", async () => {
    const { json, status } = await pushed({ title: "Lead 7", url: "/leads/7" });
    const { navigate } = (JSON.parse(json) as { notification: { navigate: string } }).notification;
    const opened = await context.newPage();
    await opened.goto(navigate);
    expect(await opened.evaluate(() => (window as unknown as { clickReported: Promise<number> }).clickReported)).toBe(204);
    const after = await status();
    expect(after.deliveries[0]).toMatchObject({ clickedAt: expect.any(String), displayedAt: after.deliveries[0]!.clickedAt });
  });
});
