// Name resolution for push delivery: a name is checked at connect time, with the very addresses the
// connection will use, so a name that resolves inside the network later (DNS rebinding) is refused too.
import { type LookupAddress, lookup as systemLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { bareHost, isPublicAddress } from "./endpoint.js";

/** The shape of `dns.lookup` that `net.connect` calls (and tests replace with their own table). */
export type Lookup = LookupFunction;

export const defaultLookup: Lookup = (hostname, options, callback) =>
  systemLookup(hostname, { ...options, all: true }, (err, addresses) => callback(err, addresses ?? []));

/** The error a guarded connection fails with; the sender reports it as `endpoint address not allowed`. */
export class AddressNotAllowedError extends Error {
  readonly code = "EADDRNOTALLOWED";
  constructor(hostname: string) {
    super(`${hostname} resolves to an address that is not allowed`);
  }
}

/** Every address a name resolves to. */
function resolveAll(lookup: Lookup, hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    lookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses as LookupAddress[]))),
  );
}

/**
 * A lookup for `net.connect` that refuses a name when any of its addresses is not public: one public
 * answer beside a private one must not let a retry land inside.
 */
export function guardedLookup(lookup: Lookup): Lookup {
  return (hostname, options, callback) => {
    resolveAll(lookup, hostname).then(
      (addresses) => {
        if (!addresses.length || addresses.some((a) => !isPublicAddress(a.address))) {
          return callback(new AddressNotAllowedError(hostname), []);
        }
        if (options.all) return callback(null, addresses);
        const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
        const first = addresses.find((a) => !family || a.family === family) ?? addresses[0]!;
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, []),
    );
  };
}

/**
 * True when the endpoint's name resolves, within `timeoutMs`, to any non-public address. A name that does
 * not resolve now is not refused: delivery checks it again at connect time.
 */
export async function resolvesInsideNetwork(endpoint: string, lookup: Lookup, timeoutMs = 2_000): Promise<boolean> {
  const host = bareHost(new URL(endpoint).hostname);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    const addresses = await Promise.race([resolveAll(lookup, host).catch(() => null), timeout]);
    return (addresses ?? []).some((a) => !isPublicAddress(a.address));
  } finally {
    clearTimeout(timer);
  }
}
