// Inside a keyed request's transaction (server/rest/idempotency.ts, runKeyed) the request holds one pool
// connection until its COMMIT. Work that takes a second connection (a rate limit's count) or waits on the
// network (a push, a DNS look-up) must not run there: forty such requests held the whole pool and each
// waited for a second connection until its deadline (issue Y, finding 3). Such routes are keyed outside a
// transaction instead (KeyedOutside); this refuses, loudly, any that was missed.
import { AsyncLocalStorage } from "node:async_hooks";
import { inAsyncContext, quietWhenIdle } from "./async-context.js";

const keyed = new AsyncLocalStorage<true>();
quietWhenIdle(keyed);

/** Runs `run` as a keyed request's transaction. */
export const inKeyedTransaction = <T>(run: () => Promise<T>): Promise<T> => inAsyncContext(() => keyed.run(true, run));

/** Throws when called inside a keyed request's transaction: `what` needs the network or a second connection. */
export function refuseInKeyedTransaction(what: string): void {
  if (keyed.getStore()) {
    throw new Error(`${what} inside a keyed request's transaction: list its route in the keyed routes kept outside one (server/app.ts)`);
  }
}
