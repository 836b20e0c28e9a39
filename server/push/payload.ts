// The body of every push (CONTRACT part five): a Declarative Web Push message (Push API, "declarative push
// message"; Safari 18.4 shows it with no service worker code) that the service workers already deployed still
// read through its top-level title, body and url. Pure: ingest and the admin test push build it, unit tests check it.

/** Declarative Web Push's marker: the member that tells a browser this JSON is a notification to show. */
export const DECLARATIVE_MARKER = 8030;
/** What RFC 8030 §7.2 has every push service accept: the encrypted body, at most this many bytes. */
export const MAX_ENCRYPTED_BYTES = 4096;
/**
 * RFC 8291's aes128gcm over one record: an 86-byte header (salt 16, record size 4, key id length 1, the
 * sender's key 65), the padding delimiter (1) and the AEAD tag (16).
 */
export const ENCRYPTION_OVERHEAD_BYTES = 86 + 1 + 16;
export const MAX_PAYLOAD_BYTES = MAX_ENCRYPTED_BYTES - ENCRYPTION_OVERHEAD_BYTES;
/** The query parameter `navigate` carries a delivery's receipt in, for the page a declarative push opens to report the click. */
export const RECEIPT_PARAMETER = "push_receipt";

export type DeclarativePayload = {
  web_push: typeof DECLARATIVE_MARKER;
  notification: { title: string; body?: string; navigate: string; lang?: string; dir?: "auto" | "ltr" | "rtl" };
  app_badge?: number;
  title: string;
  body?: string | null;
  url?: string | null;
  data: { notificationId: string | null; receipt: string | null };
};

export type PayloadLinks = {
  /** APP_BASE_URL: what a notification's path is relative to; null when unset. */
  appBaseUrl: string | null;
  /** The operator console's inbox: where a push leads when it has no url that can be made absolute. */
  inboxUrl: string;
};

export type PayloadInput = {
  title: string;
  body: string | null;
  url: string | null;
  notificationId: string | null;
  receipt: string | null;
  /** The user's unread count after this notification; null leaves the app badge alone. */
  appBadge: number | null;
};

/** Where a click leads: the url when absolute, else APP_BASE_URL joined with its path, else the console's inbox. */
export function navigateOf(url: string | null, links: PayloadLinks): string {
  if (url && /^https:\/\//i.test(url)) return url;
  if (url?.startsWith("/") && links.appBaseUrl) return new URL(url, links.appBaseUrl).href;
  return links.inboxUrl;
}

/** `navigate` with the receipt as a query parameter, before any fragment, for the page it opens. */
export function withReceipt(navigate: string, receipt: string | null): string {
  if (!receipt) return navigate;
  const url = new URL(navigate);
  url.searchParams.append(RECEIPT_PARAMETER, receipt);
  return url.href;
}

export function buildPushPayload(input: PayloadInput, links: PayloadLinks): DeclarativePayload {
  return {
    web_push: DECLARATIVE_MARKER,
    notification: {
      title: input.title,
      ...(input.body ? { body: input.body } : {}),
      navigate: withReceipt(navigateOf(input.url, links), input.receipt),
    },
    ...(input.appBadge === null ? {} : { app_badge: input.appBadge }),
    // What service workers deployed before declarative payloads read, as it always was.
    title: input.title,
    body: input.body,
    url: input.url,
    data: { notificationId: input.notificationId, receipt: input.receipt },
  };
}

export const payloadBytes = (payload: unknown) => Buffer.byteLength(JSON.stringify(payload), "utf8");

/** The largest placeholders of what is only known per delivery, so a payload that fits here fits for every delivery. */
const WIDEST = { notificationId: "00000000-0000-0000-0000-000000000000", appBadge: 2_147_483_647 };

export type Fitted = { body: string | null; trimmed: boolean } | { tooLarge: string };

/**
 * Makes a notification's push fit in MAX_ENCRYPTED_BYTES once encrypted: its body (twice in the payload) is
 * cut, at a character, with an ellipsis; when the title and url alone are too large, why. Measured with the
 * widest id, badge and receipt any delivery may carry (`receiptLength`), so the check holds at send time.
 */
export function fitPayload(input: Pick<PayloadInput, "title" | "body" | "url">, links: PayloadLinks, receiptLength: number): Fitted {
  const measure = (body: string | null) =>
    payloadBytes(buildPushPayload({ ...input, body, ...WIDEST, receipt: receiptLength ? "x".repeat(receiptLength) : null }, links));
  if (measure(input.body) <= MAX_PAYLOAD_BYTES) return { body: input.body, trimmed: false };
  const bare = measure(null);
  if (bare > MAX_PAYLOAD_BYTES) {
    return {
      tooLarge:
        `the push would be ${bare + ENCRYPTION_OVERHEAD_BYTES} bytes encrypted even without its body, over the ` +
        `${MAX_ENCRYPTED_BYTES} a push service must accept (RFC 8030, RFC 8291): shorten the title or url`,
    };
  }
  // The longest prefix (in code points) that fits with its ellipsis: a binary search of a few measures.
  const chars = Array.from(input.body ?? "");
  let low = 0;
  let high = chars.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (measure(`${chars.slice(0, mid).join("")}…`) <= MAX_PAYLOAD_BYTES) low = mid;
    else high = mid - 1;
  }
  return { body: low ? `${chars.slice(0, low).join("")}…` : null, trimmed: true };
}
