// The sample service worker (docs/producers.md, "Subscribing a browser"; docs/api.md#declarative-payloads). Register it
// from the app's origin with the notification service's origin as `api`:
//   navigator.serviceWorker.register(`/sw.js?api=${encodeURIComponent("https://notify.example.com")}`)
// A browser with Declarative Web Push (Safari 18.4+) shows the push by itself and never runs the push event
// below; every other browser runs it and shows the same notification from the same payload. Either way the
// receipts say what the user saw and clicked (POST /api/notifications/receipts, no session, no cookie).
const API = new URL(self.location.href).searchParams.get("api") ?? self.location.origin;

/** Reports a stage of a push's receipt; a receipt that fails to report never stops the notification. */
async function report(receipt, stage) {
  if (!receipt) return;
  try {
    await fetch(`${API}/api/notifications/receipts`, {
      method: "POST",
      credentials: "omit",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ receipt, stage }),
    });
  } catch {
    // Offline: the notification matters more than its receipt.
  }
}

/** Shows a push from its declarative payload (or an older {title, body, url} one) and reports it displayed. */
async function show(payload) {
  const n = payload.notification ?? { title: payload.title, body: payload.body, navigate: payload.url };
  await self.registration.showNotification(n.title, {
    body: n.body ?? undefined,
    lang: n.lang,
    dir: n.dir,
    data: { navigate: n.navigate, receipt: payload.data?.receipt ?? null },
    // A push sent again (its first answer was lost on the way) replaces the one shown instead of adding a second.
    tag: payload.data?.notificationId ?? undefined,
  });
  if (typeof payload.app_badge === "number" && self.navigator.setAppBadge)
    await self.navigator.setAppBadge(payload.app_badge).catch(() => {});
  await report(payload.data?.receipt, "displayed");
}

/** A click: reported first, then the notification's page opened. */
async function clicked(notification) {
  notification.close();
  await report(notification.data?.receipt, "clicked");
  if (notification.data?.navigate) await self.clients.openWindow(notification.data.navigate);
}

self.addEventListener("push", (event) => {
  if (event.data) event.waitUntil(show(event.data.json()));
});
self.addEventListener("notificationclick", (event) => event.waitUntil(clicked(event.notification)));
