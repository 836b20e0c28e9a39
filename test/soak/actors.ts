// What the traffic loops share: the signed-in actors (and their sign-up), the stop flag, a seeded PRNG and weighted choice.
import { send } from "./http.js";
import { errorSamples } from "./stats.js";

export type Actor = { email: string; password: string; token: string; id: string };

/** Set on SIGINT/SIGTERM: every loop ends at its next operation. */
export const control = { stopping: false };

const password = "correct-horse-battery-staple";

export async function signUp(email: string): Promise<Actor> {
  const answer = await send("setup: sign up", {
    method: "POST",
    path: "/api/auth/sign-up/email",
    body: { name: email.split("@")[0], email, password },
    expect: 200,
  });
  const body = answer?.body as { token?: string; user?: { id: string } } | undefined;
  if (!body?.token || !body.user) throw new Error(`sign-up of ${email} failed: ${errorSamples.join("\n")}`);
  return { email, password, token: body.token, id: body.user.id };
}

/** A small deterministic PRNG (mulberry32), so a run's mix can be reproduced. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

/** Weighted choice: each entry is [weight, value]. */
export function weighted<T>(entries: readonly (readonly [number, T])[]) {
  const total = entries.reduce((sum, [w]) => sum + w, 0);
  return (roll: number) => {
    let at = roll * total;
    for (const [w, value] of entries) {
      at -= w;
      if (at < 0) return value;
    }
    return entries[entries.length - 1]![1];
  };
}
