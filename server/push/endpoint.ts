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
 * True for an address on the public internet. ipaddr.js names each special range (loopback, private,
 * linkLocal, carrierGradeNat, uniqueLocal, multicast, reserved, 6to4, teredo, …); only "unicast" is
 * public. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === "unicast";
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
