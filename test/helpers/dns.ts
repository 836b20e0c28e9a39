// A name resolver for tests: answers from a table and never asks the network. Unknown names are ENOTFOUND.
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import type { Lookup } from "../../server/push/guard.js";

export function tableLookup(table: Record<string, string[]>): Lookup {
  return (hostname, options, callback) => {
    const found = isIP(hostname) ? [hostname] : table[hostname.toLowerCase()];
    if (!found?.length) {
      const err: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      return void queueMicrotask(() => callback(err, []));
    }
    const addresses: LookupAddress[] = found.map((address) => ({ address, family: isIP(address) }));
    queueMicrotask(() => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)));
  };
}

/** Names the test resolver knows: public ones, and ones that point inside the network. */
export const TEST_HOSTS = {
  "push.public.test": ["93.184.215.14"],
  "rebind.test": ["127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "mixed.test": ["93.184.215.14", "10.0.0.5"],
  "v6-loopback.test": ["::1"],
} as const satisfies Record<string, string[]>;

export const testLookup = tableLookup(TEST_HOSTS);
