// The floor of `push-drain` (bench/push-drain.ts), as a child process of its own (as the product is): the
// same Web Push messages sent straight with the web-push library, `webpush.sendNotification` with the same
// VAPID keys, payloads, urgency and TTL as the product's sender, at a given concurrency, with no queue and no
// database. The parent sends the messages ({load}), then {send: concurrency}; the child answers when
// every message has had its answer, with the Date.now() it started at.
//
// web-push always calls https.request; the bench's push service speaks plain http on loopback. An
// https.Agent whose connections are plain TCP sockets (http.Agent's own createConnection) lets
// sendNotification reach it unchanged, with keep-alive connections as a real push service would get.
import https from "node:https";
import net from "node:net";
import webpush from "web-push";
import { mapWithConcurrency } from "../server/push/concurrency.js";

export type DirectMessage = {
  endpoint: string;
  p256dh: string;
  auth: string;
  payload: string;
  urgency: "very-low" | "low" | "normal" | "high";
};
export type DirectVapid = { subject: string; publicKey: string; privateKey: string };
export type DirectRequest = { load: DirectMessage[]; vapid: DirectVapid; ttlSeconds: number } | { send: number };
export type DirectAnswer =
  | { loaded: number }
  /** cpuMs: the sender's user + system CPU over the round. */
  | { startedAt: number; doneAt: number; sent: number; failed: number; errors: string[]; cpuMs: number };

function plainAgent(): https.Agent {
  const agent = new https.Agent({ keepAlive: true });
  (agent as unknown as { createConnection: typeof net.createConnection }).createConnection = net.createConnection;
  return agent;
}

if (process.send) {
  let messages: DirectMessage[] = [];
  let vapid: DirectVapid | undefined;
  let ttl = 86_400;
  const agent = plainAgent();
  process.on("message", async (request: DirectRequest) => {
    if ("load" in request) {
      messages = request.load;
      vapid = request.vapid;
      ttl = request.ttlSeconds;
      process.send?.({ loaded: messages.length } satisfies DirectAnswer);
      return;
    }
    const failed: string[] = [];
    const cpu = process.cpuUsage();
    const startedAt = Date.now();
    await mapWithConcurrency(messages, request.send, async (m) => {
      try {
        await webpush.sendNotification({ endpoint: m.endpoint, keys: { p256dh: m.p256dh, auth: m.auth } }, m.payload, {
          vapidDetails: vapid!,
          TTL: ttl,
          urgency: m.urgency,
          contentEncoding: "aes128gcm",
          agent,
          timeout: 10_000,
        });
      } catch (err) {
        failed.push((err as Error).message);
      }
    });
    const doneAt = Date.now();
    const used = process.cpuUsage(cpu);
    process.send?.({
      startedAt,
      doneAt,
      sent: messages.length - failed.length,
      failed: failed.length,
      errors: failed.slice(0, 5),
      cpuMs: (used.user + used.system) / 1000,
    } satisfies DirectAnswer);
  });
  process.on("disconnect", () => process.exit(0));
}
