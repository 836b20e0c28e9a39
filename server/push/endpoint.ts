// Pure rules: which push endpoints the service may POST to (docs/api.md#push-endpoints). https only (http
// when allowed), and never an address inside the service's own network: the service makes the request, so
// an endpoint pointing there would let any user reach it (server-side request forgery).
import ipaddr from "ipaddr.js";

export const MAX_ENDPOINT_LENGTH = 2048;

export type EndpointPolicy = {
  /** Admit http: endpoints (local push services in tests and development). */
  allowHttp: boolean;
  /** Admit endpoints in loopback, private and other non-public space (the same). */
  allowPrivate: boolean;
};

export const ADDRESS_NOT_ALLOWED = "must not point into a loopback, private, link-local or reserved network";

/**
 * The IPv4 address an IPv6 address carries in its last 32 bits when the rest says so: IPv4-mapped
 * (::ffff:0:0/96), and IPv4-compatible (::/96, deprecated, but still routed as its IPv4 address by some
 * stacks; ipaddr.js calls `::127.0.0.1`, that is `::7f00:1`, plain unicast). `::` and `::1` are not.
 */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const parts = address.parts;
  const compatible = parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7]! > 1);
  return compatible ? (ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4) : null;
}

/**
 * True for an address on the public internet. ipaddr.js names each special range (loopback, private,
 * linkLocal, carrierGradeNat, uniqueLocal, multicast, reserved, 6to4, teredo, …); only "unicast" is
 * public. An IPv6 address that carries an IPv4 address (carriedIPv4) is judged as that IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  const judged = parsed.kind() === "ipv6" ? (carriedIPv4(parsed as ipaddr.IPv6) ?? parsed) : parsed;
  return judged.range() === "unicast";
}

/** A URL's hostname without IPv6 brackets or a trailing dot: `[::1]` → `::1`, `localhost.` → `localhost`. */
export function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return unbracketed.replace(/\.+$/, "").toLowerCase();
}

/**
 * Whether a host is known to be non-public without asking DNS: an IP literal outside public space, or
 * `localhost` and its subdomains. The URL parser already turned `2130706433` or `0x7f.1` into `127.0.0.1`.
 */
export function isForbiddenHost(hostname: string): boolean {
  const host = bareHost(hostname);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return ipaddr.isValid(host) ? !isPublicAddress(host) : false;
}

/** Why an endpoint is refused, or null when it is acceptable (DNS is checked apart: see guard.ts). */
export function endpointProblem(endpoint: string, policy: EndpointPolicy): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "must be an absolute URL";
  }
  const allowed = policy.allowHttp ? ["https:", "http:"] : ["https:"];
  if (!allowed.includes(url.protocol)) return policy.allowHttp ? "must be an http: or https: URL" : "must be an https: URL";
  // Credentials in the URL would be sent along to whoever the host is; no push service uses them.
  if (url.username || url.password) return "must not contain credentials";
  if (!policy.allowPrivate && isForbiddenHost(url.hostname)) return ADDRESS_NOT_ALLOWED;
  return null;
}
