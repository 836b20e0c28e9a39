// Web Push delivery. (Filled in by issue B: request building, bounded fan-out, push-service answers.)
import type { Vapid } from "../config.js";

export type PushPayload = { title: string; body: string | null; url: string | null };
export type PushTarget = { id: string; endpoint: string; p256dh: string; auth: string };
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
  /** Admit http: endpoints (local push services in tests and development). */
  readonly allowHttpEndpoints: boolean;
  send(targets: PushTarget[], payload: PushPayload): Promise<PushOutcome[]>;
}

export type PushServiceOptions = {
  vapid: Vapid | null;
  allowHttpEndpoints?: boolean;
  concurrency?: number;
  timeoutMs?: number;
};

export function createPushService(options: PushServiceOptions): PushService {
  return {
    vapid: options.vapid,
    allowHttpEndpoints: options.allowHttpEndpoints ?? false,
    async send() {
      throw new Error("push delivery is not implemented yet");
    },
  };
}
