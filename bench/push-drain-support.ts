// What bench/push-drain.ts measures with: waiting for pushes to arrive and for deliveries to be recorded,
// the check of each push's payload, and the direct sender (bench/push-direct.ts) as a child process.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type postgres from "postgres";
import type { LocalPushService, ReceivedPush, Subscriber } from "../tools/local-push-service.js";
import type { DirectAnswer, DirectRequest } from "./push-direct.js";

/** The producer (API key name) of the bench's batches. */
export const PRODUCER = "bench";
const ARRIVAL_TIMEOUT_MS = 60_000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (polling every 5 ms, so the bench takes no CPU from the senders) until `count` pushes arrived after `from`. */
export async function arrivals(push: LocalPushService, from: number, count: number): Promise<ReceivedPush[]> {
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  while (push.received.length - from < count) {
    if (Date.now() > deadline)
      throw new Error(`push-drain: ${push.received.length - from} of ${count} pushes arrived within ${ARRIVAL_TIMEOUT_MS / 1000} s`);
    await sleep(5);
  }
  // Anything that came later than expected (a repeat) is counted by the caller.
  await sleep(50);
  return push.received.slice(from);
}

/** Polls (every 20 ms) until none of the deliveries of these events is queued; returns their final statuses. */
export async function recorded(sql: postgres.Sql, like: string): Promise<{ sent: number; failed: number; at: number }> {
  const deadline = Date.now() + ARRIVAL_TIMEOUT_MS;
  for (;;) {
    const [row] = await sql<{ queued: number; sent: number; other: number }[]>`
      select count(*) filter (where status = 'queued')::int as queued, count(*) filter (where status = 'sent')::int as sent,
             count(*) filter (where status not in ('queued', 'sent'))::int as other
      from push_deliveries where producer = ${PRODUCER} and event_id like ${like}`;
    if (row!.queued === 0) return { sent: row!.sent, failed: row!.other, at: Date.now() };
    if (Date.now() > deadline) throw new Error(`push-drain: ${row!.queued} deliveries of ${like} still queued`);
    await sleep(20);
  }
}

/**
 * Pushes whose payload, decrypted with the subscriber's keys, is not the one its endpoint was to get: the
 * fields expected ({title, body, url}, which a declarative payload keeps at its top level) compared, the others
 * (the declarative part, the receipt) not.
 */
export function wrongPayloads(received: ReceivedPush[], subscribers: Map<string, Subscriber>, expected: Map<string, unknown>): number {
  const canonical = (v: unknown, keys: string[]) => JSON.stringify(keys.sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
  let wrong = 0;
  for (const push of received) {
    try {
      const subscriber = subscribers.get(push.path);
      const want = expected.get(push.path);
      const keys = Object.keys((want ?? {}) as Record<string, unknown>);
      if (!subscriber || want === undefined || canonical(subscriber.decrypt(push.body), keys) !== canonical(want, keys)) wrong++;
    } catch {
      wrong++;
    }
  }
  return wrong;
}

/** The direct sender (bench/push-direct.ts) as a child process. */
export async function startDirect() {
  const child: ChildProcess = fork(fileURLToPath(new URL("./push-direct.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = <T extends DirectAnswer>(request: DirectRequest) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("push-drain: the direct sender did not answer")), ARRIVAL_TIMEOUT_MS);
      child.once("message", (answer: T) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.send(request);
    });
  return {
    ask,
    stop: () => {
      if (child.connected) child.disconnect();
      if (child.exitCode === null) child.kill("SIGTERM");
    },
  };
}
