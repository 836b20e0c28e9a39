// The bounds every instance applies to its callers: how long a request may take to arrive, and the rate and
// size limits. buildApp takes them from the configuration (server/service.ts); tests lower them.
import type { Window } from "./http/rate-limit.js";

/**
 * Node's bounds on receiving a request. Without them a client that dribbled its headers or its body held its
 * connection open indefinitely (still open after 130 s, issue X). They cover receiving the request only: an
 * answer, a long-lived stream included, is never cut by them.
 */
export type Timeouts = {
  /** The request's headers must have arrived within this (Node's headersTimeout). */
  headersMs: number;
  /** The whole request, its body included, must have arrived within this (Node's requestTimeout). */
  requestMs: number;
  /** How often Node checks connections against the two (connectionsCheckingInterval): the bounds' slack. */
  checkEveryMs: number;
};

/** A dribbling client is closed at most requestMs + checkEveryMs = 55 s after it began its request. */
export const defaultTimeouts: Timeouts = { headersMs: 30_000, requestMs: 50_000, checkEveryMs: 5_000 };

export type Limits = {
  /** Password sign-in attempts per client address and account (Fastify door: sign-in is no procedure). */
  signIn: Window;
  /** Failed sign-ins per client address, whatever the account (SIGN_IN_PER_ADDRESS_PER_MINUTE). */
  signInFailuresPerAddress: Window;
  /** Sign-ups per client address (Fastify door). */
  signUp: Window;
  /** Admin test pushes per caller (user id), through either door (the procedure's rateLimited middleware). */
  testPush: Window;
  /** Delivery receipts per client address (POST /api/notifications/receipts, no session). */
  receipts: Window;
  /** Largest request body, in bytes. */
  bodyBytes: number;
  /** Live unread-count streams (SSE and tRPC) one user may have open on this instance (STREAMS_PER_USER). */
  streamsPerUser: number;
  /** Active push subscriptions one user may have; a new one deactivates the least recently updated (PUSH_SUBSCRIPTIONS_PER_USER). */
  pushSubscriptionsPerUser: number;
  /** Calls one tRPC batch may hold (TRPC_MAX_BATCH_SIZE). */
  trpcBatchSize: number;
  /**
   * OFREP evaluations and stream connections per API key (OFREP_REQUESTS_PER_MINUTE), counted in this
   * instance's memory: a database round trip per evaluation would double its cost.
   */
  ofrepPerKey: Window;
  /** Open OFREP event streams per stream address, key and targeting key (OFREP_STREAMS_PER_TARGET). */
  ofrepStreamsPerTarget: number;
  /** Open OFREP event streams per key on this instance (OFREP_STREAMS_PER_KEY). */
  ofrepStreamsPerKey: number;
};

export const defaultLimits: Limits = {
  signIn: { max: 10, timeWindowMs: 60_000 },
  signInFailuresPerAddress: { max: 60, timeWindowMs: 60_000 },
  signUp: { max: 10, timeWindowMs: 60_000 },
  testPush: { max: 30, timeWindowMs: 60_000 },
  receipts: { max: 600, timeWindowMs: 60_000 },
  bodyBytes: 1024 * 1024,
  streamsPerUser: 32,
  pushSubscriptionsPerUser: 20,
  trpcBatchSize: 50,
  ofrepPerKey: { max: 30_000, timeWindowMs: 60_000 },
  ofrepStreamsPerTarget: 32,
  ofrepStreamsPerKey: 10_000,
};
