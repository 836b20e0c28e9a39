// AsyncLocalStorages switched off while nothing uses them. On Node 20, once one has run, every promise the
// process makes pays a hook per enabled storage, and better-auth's three stayed on after the first sign-in:
// every later request paid them (docs/machinery.md, BENCHMARKS.md issue AE). Each use is counted here, and
// when the last one ends every registered storage is disabled; its next run() enables it again.
import type { AsyncLocalStorage } from "node:async_hooks";

const storages = new Set<AsyncLocalStorage<unknown>>();
let inUse = 0;

/** Storages to switch off when no counted use is running: only ones whose run() is always inside inAsyncContext. */
export function quietWhenIdle(...some: AsyncLocalStorage<unknown>[]): void {
  for (const storage of some) storages.add(storage);
}

/**
 * Runs `use`, in which registered storages may run. Every way into them must come through here: a storage
 * disabled while a use of it was still running would lose its value there.
 */
export async function inAsyncContext<T>(use: () => Promise<T>): Promise<T> {
  inUse++;
  try {
    return await use();
  } finally {
    if (--inUse === 0) for (const storage of storages) storage.disable();
  }
}

/** How many counted uses are running (tests). */
export const asyncContextUses = () => inUse;
