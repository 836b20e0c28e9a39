// What the push features need besides the push service, made once at start: the payloads' links, the receipt
// tokens' key (receipt-token.ts), and the CORS of the receipts door (receipt-route.ts).
import type { PayloadLinks } from "../push/payload.js";
import { receiptTokens } from "../push/receipt-token.js";
import type { PushService } from "../push/sender.js";
import { type IngestPush, RECEIPT_GRACE_SECONDS } from "./push-deliveries.js";

/** Null when push is off (no VAPID keys): no payload is built and no receipt handed out. */
export function pushExtrasOf(push: PushService, links: PayloadLinks): IngestPush | null {
  if (!push.vapid) return null;
  return { links, tokens: receiptTokens(push.vapid.privateKey), receiptSeconds: push.ttlSeconds + RECEIPT_GRACE_SECONDS };
}

/**
 * The receipts path's CORS: the app's origin (its service worker and the page a declarative push opens) and
 * CORS_ORIGINS may call it, never with credentials, since the token alone is the authority. Browsers enforce
 * it; a program may call from anywhere, which the token and the rate limit make harmless.
 */
export function receiptCorsOptions(corsOrigins: readonly string[], appBaseUrl: string | null) {
  const origins = [...new Set([...corsOrigins, ...(appBaseUrl ? [appBaseUrl] : [])])];
  return { origin: origins.length ? origins : false, credentials: false, methods: ["POST"], maxAge: 600 };
}
