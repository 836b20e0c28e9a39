// Every push body is a Declarative Web Push message (server/push/payload.ts). The checker below is the Push
// API's "declarative push message parser" (w3c/push-api, as WebKit ships it in Safari 18.4): a payload it
// accepts is shown by Safari with no service worker; one it refuses falls back to the service worker's push event.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import {
  buildPushPayload,
  ENCRYPTION_OVERHEAD_BYTES,
  fitPayload,
  MAX_ENCRYPTED_BYTES,
  MAX_PAYLOAD_BYTES,
  navigateOf,
  type PayloadLinks,
  payloadBytes,
} from "../../server/push/payload.js";
import { RECEIPT_TOKEN_LENGTH } from "../../server/push/receipt-token.js";
import { makeSubscriber } from "../../tools/local-push-service.js";

/** Why the declarative parser would refuse a message, or null when it takes it. */
function declarativeProblem(message: unknown): string | null {
  const m = message as Record<string, unknown>;
  if (typeof m !== "object" || m === null) return "not an object";
  if (m.web_push !== 8030) return "web_push must be 8030";
  const n = m.notification as Record<string, unknown> | undefined;
  if (typeof n !== "object" || n === null) return "notification must be an object";
  if (typeof n.title !== "string" || n.title === "") return "notification.title must be a non-empty string";
  if (typeof n.navigate !== "string") return "notification.navigate is required";
  let navigate: URL;
  try {
    navigate = new URL(n.navigate);
  } catch {
    return "notification.navigate must be an absolute URL";
  }
  if (navigate.protocol !== "https:" && navigate.protocol !== "http:") return "notification.navigate must be http(s)";
  for (const key of ["body", "lang", "tag", "icon"] as const)
    if (key in n && typeof n[key] !== "string") return `notification.${key} must be a string`;
  if ("dir" in n && !["auto", "ltr", "rtl"].includes(n.dir as string)) return "notification.dir must be auto, ltr or rtl";
  if ("silent" in n && typeof n.silent !== "boolean") return "notification.silent must be a boolean";
  if ("app_badge" in m && !(Number.isSafeInteger(m.app_badge) && (m.app_badge as number) >= 0)) return "app_badge must be an integer ≥ 0";
  if ("mutable" in m && typeof m.mutable !== "boolean") return "mutable must be a boolean";
  return null;
}

const links: PayloadLinks = { appBaseUrl: "https://app.example.com", inboxUrl: "https://notify.example.com/console/inbox" };
const receipt = "r".repeat(RECEIPT_TOKEN_LENGTH);

describe("the declarative payload", () => {
  it("has the WebKit format's fields, and the top-level title, body and url old service workers read", () => {
    const payload = buildPushPayload(
      { title: "New message", body: "Tuesday?", url: "/inbox/9", notificationId: "n-1", receipt, appBadge: 3 },
      links,
    );
    expect(declarativeProblem(payload)).toBeNull();
    expect(payload).toEqual({
      web_push: 8030,
      notification: { title: "New message", body: "Tuesday?", navigate: `https://app.example.com/inbox/9?push_receipt=${receipt}` },
      app_badge: 3,
      title: "New message",
      body: "Tuesday?",
      url: "/inbox/9",
      data: { notificationId: "n-1", receipt },
    });
  });

  it("navigate: the url when absolute, APP_BASE_URL joined with a path, else the console's inbox", () => {
    expect(navigateOf("https://other.example/x?y=1#z", links)).toBe("https://other.example/x?y=1#z");
    expect(navigateOf("/leads/7?tab=2", links)).toBe("https://app.example.com/leads/7?tab=2");
    expect(navigateOf("/leads/7", { ...links, appBaseUrl: null })).toBe(links.inboxUrl);
    expect(navigateOf(null, links)).toBe(links.inboxUrl);
    // The receipt goes into the query, before a fragment.
    const payload = buildPushPayload(
      { title: "t", body: null, url: "https://o.example/p#frag", notificationId: null, receipt, appBadge: null },
      links,
    );
    expect(payload.notification.navigate).toBe(`https://o.example/p?push_receipt=${receipt}#frag`);
    expect(payload).not.toHaveProperty("app_badge");
    expect(payload.notification).not.toHaveProperty("body");
  });

  it("any title, body and url an event may carry makes a payload the parser takes, which fits once encrypted", () => {
    // One-, three- and four-byte characters, and the ones JSON escapes (a quote, a backslash, a control).
    const unit = fc.constantFrom("a", "€", "😀", '"', "\\", "\u0001");
    const text = (max: number) => fc.string({ unit, minLength: 1, maxLength: max });
    const url = fc.oneof(
      fc.constant(null),
      text(200).map((p) => `/${encodeURIComponent(p)}`),
      fc.webUrl().filter((u) => u.startsWith("https://")),
    );
    fc.assert(
      fc.property(text(200), fc.option(text(2000)), url, (title, body, url) => {
        const fitted = fitPayload({ title, body, url }, links, RECEIPT_TOKEN_LENGTH);
        if ("tooLarge" in fitted) return;
        const payload = buildPushPayload(
          { title, body: fitted.body, url, notificationId: crypto.randomUUID(), receipt, appBadge: 2_147_483_647 },
          links,
        );
        expect(declarativeProblem(payload)).toBeNull();
        expect(payloadBytes(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
      }),
      { numRuns: 60 },
    );
  });

  it("the size bound is web-push's own: the largest payload that fits encrypts to at most 4096 bytes, one byte more does not", () => {
    const subscriber = makeSubscriber();
    const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.com" };
    const encrypted = (plaintext: string) =>
      webpush.generateRequestDetails(
        { endpoint: "https://push.example.com/x", keys: { p256dh: subscriber.p256dh, auth: subscriber.auth } },
        plaintext,
        {
          vapidDetails: vapid,
          contentEncoding: "aes128gcm",
        },
      ).body!.length;
    expect(encrypted("a".repeat(MAX_PAYLOAD_BYTES))).toBe(MAX_ENCRYPTED_BYTES);
    expect(encrypted("a".repeat(MAX_PAYLOAD_BYTES + 1))).toBe(MAX_ENCRYPTED_BYTES + 1);
    expect(ENCRYPTION_OVERHEAD_BYTES).toBe(103);
  });

  it("a body too large is cut at a character with an ellipsis; a title and url too large alone are refused", () => {
    const fitted = fitPayload({ title: "t", body: "😀".repeat(2000), url: null }, links, RECEIPT_TOKEN_LENGTH);
    expect(fitted).toMatchObject({ trimmed: true, body: expect.stringMatching(/^(😀)+…$/u) });
    const refused = fitPayload(
      { title: "€".repeat(200), body: null, url: `https://a.example/${"y".repeat(2000)}` },
      links,
      RECEIPT_TOKEN_LENGTH,
    );
    expect(refused).toEqual({ tooLarge: expect.stringMatching(/even without its body, over the 4096 .*shorten the title or url/) });
  });
});
