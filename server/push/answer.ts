// Pure rule: what a push service's answer means for one subscription. No I/O, unit-tested on its own.

/** What came back from one delivery attempt: an HTTP status, or no answer at all. */
export type PushAnswer =
  | { status: number }
  | { failure: "timeout" | "network"; message: string }
  /** The endpoint's address is inside the service's own network: no connection was made. */
  | { failure: "address" };

export type PushVerdict = {
  ok: boolean;
  /** The subscription no longer exists at the push service: deactivate it. */
  gone: boolean;
  error?: string;
};

export const ENDPOINT_ADDRESS_NOT_ALLOWED = "endpoint address not allowed";

/**
 * 2xx: delivered. 404/410: the subscription expired or was revoked (RFC 8030 §7.3), so it is gone.
 * Everything else (429, 5xx, other 4xx such as a VAPID key mismatch, redirects, timeouts, network
 * errors, an address inside the network) is a failure of this attempt only: the subscription is kept.
 */
export function judgePushAnswer(answer: PushAnswer): PushVerdict {
  if ("failure" in answer) {
    if (answer.failure === "address") return { ok: false, gone: false, error: ENDPOINT_ADDRESS_NOT_ALLOWED };
    const what = answer.failure === "timeout" ? "Timed out" : "Network error";
    return { ok: false, gone: false, error: `${what}: ${answer.message}` };
  }
  const { status } = answer;
  if (status >= 200 && status < 300) return { ok: true, gone: false };
  if (status === 404 || status === 410) {
    return { ok: false, gone: true, error: `Subscription gone (HTTP ${status})` };
  }
  return { ok: false, gone: false, error: `Push service answered HTTP ${status}` };
}

import type { PushDeliveryResult } from "../../db/schema/delivery-statuses.js";

export type { PushDeliveryResult };

export function pushDeliveryResult(answer: PushAnswer, verdict: PushVerdict): PushDeliveryResult {
  if ("failure" in answer && answer.failure === "address") return "address_not_allowed";
  return verdict.ok ? "delivered" : verdict.gone ? "gone" : "failed";
}
