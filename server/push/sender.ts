// Web Push delivery: web-push builds each request (aes128gcm encryption, VAPID JWT), undici's fetch sends
// it, so http: push services (local ones in tests and development) work too. Fan-out is bounded, each
// request has a timeout, and each subscription gets its own outcome: one failure never fails the others.
// Unless private endpoints are allowed, a connection is only made to a public address (guard.ts).
import { Agent, fetch } from "undici";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema/index.js";
import type { Vapid } from "../config.js";
import { refuseInKeyedTransaction } from "../http/keyed-scope.js";
import { countPushDelivery } from "../observability/metrics.js";
import { judgePushAnswer, type PushAnswer, pushDeliveryResult } from "./answer.js";
import { mapWithConcurrency } from "./concurrency.js";
import { type EndpointPolicy, endpointProblem, isForbiddenHost } from "./endpoint.js";
import { AddressNotAllowedError, defaultLookup, guardedLookup, type Lookup, resolvesInsideNetwork } from "./guard.js";
import type { DeclarativePayload } from "./payload.js";
import { readRetryAfter } from "./retry.js";
import { appleRefusesSubject, appleSubjectRefusal, isAppleEndpoint } from "./vapid-subject.js";

/** Every push body is a declarative payload (payload.ts). */
export type PushPayload = DeclarativePayload;
export type PushTarget = { id: string; endpoint: string; p256dh: string; auth: string };

/** The columns of push_subscriptions a send needs: select them as a PushTarget. */
export const pushTargetColumns = {
  id: pushSubscriptions.id,
  endpoint: pushSubscriptions.endpoint,
  p256dh: pushSubscriptions.p256dh,
  auth: pushSubscriptions.auth,
};
export type PushOutcome = {
  subscriptionId: string;
  statusCode: number | null;
  ok: boolean;
  /** The push service says the subscription no longer exists (404/410): deactivate it. */
  gone: boolean;
  error?: string;
};

export interface PushService {
  readonly vapid: Vapid | null;
  /** The TTL every push carries (PUSH_TTL_SECONDS): past it the message is not worth sending. */
  readonly ttlSeconds: number;
  /**
   * Why an endpoint may not be subscribed, or null: its form (endpoint.ts), and, unless private endpoints
   * are allowed, the addresses its name resolves to now.
   */
  endpointProblem(endpoint: string): Promise<string | null>;
  /** Sends one payload to every target (with `topic`, RFC 8030's Topic); throws only when no VAPID keys are configured. */
  send(targets: PushTarget[], payload: PushPayload, options?: { topic?: string | null }): Promise<PushOutcome[]>;
  /**
   * One attempt of one message (the durable queue's, server/push/delivery-queue.ts): the push service's
   * answer and its Retry-After. `timeoutMs` shortens the request's timeout (the queue ends a send before its
   * lease does). Throws only when no VAPID keys are configured.
   */
  attempt(
    target: PushTarget,
    body: string,
    options: { urgency: Urgency; topic?: string | null; timeoutMs?: number },
  ): Promise<AttemptAnswer>;
}

export type Urgency = "very-low" | "low" | "normal" | "high";

/**
 * An attempt's answer, or why nothing was sent: the message could not be encrypted (the subscription's keys
 * are bad), or the push service is Apple's and would refuse the VAPID subject (vapid-subject.ts).
 */
export type AttemptAnswer = { answer: PushAnswer; retryAfterSeconds: number | null } | { unencryptable: string };

export type PushServiceOptions = {
  vapid: Vapid | null;
  /** Admit http: endpoints (local push services in tests and development). */
  allowHttpEndpoints?: boolean;
  /** Admit endpoints in loopback, private and reserved space (the same). */
  allowPrivateEndpoints?: boolean;
  /** Name resolution (tests give a table); the system resolver by default. */
  lookup?: Lookup;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Per request, from connecting to the answer's status line. */
  timeoutMs?: number;
  /** How long the push service keeps an undelivered message, in seconds. */
  ttlSeconds?: number;
};

export const DEFAULT_CONCURRENCY = 10;
export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_TTL_SECONDS = 24 * 60 * 60;

export function createPushService(options: PushServiceOptions): PushService {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ttl = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const policy: EndpointPolicy = {
    allowHttp: options.allowHttpEndpoints ?? false,
    allowPrivate: options.allowPrivateEndpoints ?? false,
  };
  const lookup = options.lookup ?? defaultLookup;
  const dispatcher = new Agent({ connect: { lookup: policy.allowPrivate ? lookup : guardedLookup(lookup) } });

  /** One request, counted in push_deliveries_total; the endpoint's address is checked every time. */
  async function attemptOnce(
    vapid: Vapid,
    target: PushTarget,
    body: string,
    urgency: Urgency,
    topic: string | null | undefined,
    timeout = timeoutMs,
  ): Promise<AttemptAnswer> {
    // Sent, it would be a 403 BadJwtToken every time: the operator's setting is what must change.
    if (isAppleEndpoint(target.endpoint) && appleRefusesSubject(vapid.subject)) {
      countPushDelivery("failed");
      return { unencryptable: appleSubjectRefusal(vapid.subject) };
    }
    let request: ReturnType<typeof webpush.generateRequestDetails>;
    try {
      request = webpush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, body, {
        vapidDetails: vapid,
        TTL: ttl,
        urgency,
        ...(topic ? { topic } : {}),
        contentEncoding: "aes128gcm",
      });
    } catch (err) {
      // Keys the browser never produced (wrong length, not base64url) cannot be encrypted to.
      countPushDelivery("failed");
      return { unencryptable: `Cannot encrypt for this subscription: ${(err as Error).message}` };
    }
    // An IP literal is connected to without a lookup, so the guard is applied to it here.
    const literalRefused = !policy.allowPrivate && isForbiddenHost(new URL(target.endpoint).hostname);
    const { answer, retryAfter } = literalRefused
      ? { answer: { failure: "address" } as const, retryAfter: null }
      : await post(request, dispatcher, Math.max(0, Math.floor(Math.min(timeoutMs, timeout))));
    countPushDelivery(pushDeliveryResult(answer, judgePushAnswer(answer)));
    return { answer, retryAfterSeconds: readRetryAfter(retryAfter) };
  }

  async function deliver(vapid: Vapid, target: PushTarget, body: string, topic: string | null | undefined): Promise<PushOutcome> {
    const attempt = await attemptOnce(vapid, target, body, "normal", topic);
    if ("unencryptable" in attempt)
      return { subscriptionId: target.id, statusCode: null, ok: false, gone: false, error: attempt.unencryptable };
    return {
      subscriptionId: target.id,
      statusCode: "status" in attempt.answer ? attempt.answer.status : null,
      ...judgePushAnswer(attempt.answer),
    };
  }

  return {
    vapid: options.vapid,
    ttlSeconds: ttl,
    async endpointProblem(endpoint) {
      refuseInKeyedTransaction("A push endpoint's DNS look-up");
      const problem = endpointProblem(endpoint, policy);
      if (problem || policy.allowPrivate) return problem;
      return (await resolvesInsideNetwork(endpoint, lookup)) ? "must not resolve to a loopback, private or reserved address" : null;
    },
    async send(targets, payload, sendOptions) {
      refuseInKeyedTransaction("Sending pushes");
      const vapid = options.vapid;
      if (!vapid) throw new Error("VAPID not configured");
      const body = JSON.stringify(payload);
      return mapWithConcurrency(targets, concurrency, (target) => deliver(vapid, target, body, sendOptions?.topic));
    },
    async attempt(target, body, { urgency, topic, timeoutMs: timeout }) {
      const vapid = options.vapid;
      if (!vapid) throw new Error("VAPID not configured");
      return attemptOnce(vapid, target, body, urgency, topic, timeout);
    },
  };
}

type RequestDetails = ReturnType<typeof webpush.generateRequestDetails>;

async function post(
  request: RequestDetails,
  dispatcher: Agent,
  timeoutMs: number,
): Promise<{ answer: PushAnswer; retryAfter: string | null }> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
  // fetch computes Content-Length itself and refuses a caller's value.
  delete headers["Content-Length"];
  try {
    const response = await fetch(request.endpoint, {
      method: request.method,
      headers,
      body: request.body ? new Uint8Array(request.body) : null,
      // A redirect could lead anywhere, http: included: the answer is the push service's own or nothing.
      redirect: "manual",
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The answer's body carries nothing we use; dropping it frees the connection.
    await response.body?.cancel().catch(() => {});
    return { answer: { status: response.status }, retryAfter: response.headers.get("retry-after") };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.cause instanceof AddressNotAllowedError) return { answer: { failure: "address" }, retryAfter: null };
    if (e.name === "TimeoutError" || e.name === "AbortError") {
      return { answer: { failure: "timeout", message: `no answer within ${timeoutMs} ms` }, retryAfter: null };
    }
    return { answer: { failure: "network", message: e.cause?.code ?? e.cause?.message ?? e.message }, retryAfter: null };
  }
}
