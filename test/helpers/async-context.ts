// Whether an AsyncLocalStorage is enabled, that is, whether every promise of the process pays its hook
// (server/http/async-context.ts). Node 20 has no public way to ask: this reads the `enabled` field its
// AsyncLocalStorage keeps, and fails loudly if a Node version stops keeping it, so a test never passes on
// a field that is not there.
import type { AsyncLocalStorage } from "node:async_hooks";

export function storageEnabled(storage: AsyncLocalStorage<unknown>): boolean {
  const enabled = (storage as unknown as { enabled?: unknown }).enabled;
  if (typeof enabled !== "boolean")
    throw new Error("this Node's AsyncLocalStorage keeps no `enabled` field: see server/http/async-context.ts");
  return enabled;
}
