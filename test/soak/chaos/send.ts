// Sending with retries, as a careful client does: the same request (same Idempotency-Key, same eventIds) again
// after no answer, a refused connection, a 503 or "still running", each time through a random live instance.
import { randomUUID } from "node:crypto";
import type { rng } from "../random.js";
import { type Answer, type Call, call, instanceCount } from "./client.js";
import { pause } from "./world.js";

export const newKey = () => randomUUID();

const stillRunning = (a: Answer) => a.status === 409 && /still running/.test(JSON.stringify(a.body ?? ""));

export const retryable = (a: Answer) => a.outcome === "unknown" || a.outcome === "refused" || a.status === 503 || stillRunning(a);

/** Sends `c` up to `attempts` times; every attempt is in the history, the last answer is returned. */
export async function sendRetrying(r: ReturnType<typeof rng>, c: Omit<Call, "inst">, attempts = 6): Promise<Answer> {
  let answer: Answer | null = null;
  for (let i = 0; i < attempts; i++) {
    answer = await call({ ...c, inst: r.int(instanceCount()), meta: { ...c.meta, attempt: i } });
    if (!retryable(answer)) return answer;
    await pause(answer.outcome === "refused" ? 50 : 200 + r.int(300));
  }
  return answer!;
}
