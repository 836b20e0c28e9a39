// Waiting for a condition in tests: polling with a deadline, never a fixed sleep.

/** Polls `probe` every `everyMs` until `done` holds; throws naming `what` (and the last value) after `withinMs`. */
export async function waitFor<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  { withinMs, everyMs = 50, what }: { withinMs: number; everyMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
