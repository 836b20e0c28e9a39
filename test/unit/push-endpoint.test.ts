import { describe, expect, it } from "vitest";
import { mapWithConcurrency } from "../../server/push/concurrency.js";
import { ADDRESS_NOT_ALLOWED, endpointProblem, isPublicAddress } from "../../server/push/endpoint.js";
import { AddressNotAllowedError, guardedLookup, resolvesInsideNetwork } from "../../server/push/guard.js";
import { testLookup } from "../helpers/dns.js";

const strict = { allowHttp: false, allowPrivate: false };

describe("endpointProblem: https only, http when allowed", () => {
  it("accepts an https URL on a public name or address", () => {
    expect(endpointProblem("https://fcm.googleapis.com/fcm/send/abc", strict)).toBeNull();
    expect(endpointProblem("https://93.184.215.14/push", strict)).toBeNull();
    expect(endpointProblem("https://[2606:4700::1111]/push", strict)).toBeNull();
  });

  it.each([
    ["http://push.example.com/push", "must be an https: URL"],
    ["ftp://example.com/x", "must be an https: URL"],
    ["file:///etc/passwd", "must be an https: URL"],
    ["javascript:alert(1)", "must be an https: URL"],
    ["/relative/path", "must be an absolute URL"],
    ["not a url", "must be an absolute URL"],
    ["https://user:secret@push.example.com/x", "must not contain credentials"],
  ])("refuses %j", (endpoint, problem) => {
    expect(endpointProblem(endpoint, strict)).toBe(problem);
  });

  it("admits http: only with allowHttp", () => {
    expect(endpointProblem("http://push.example.com/push", { ...strict, allowHttp: true })).toBeNull();
    expect(endpointProblem("ftp://example.com/x", { ...strict, allowHttp: true })).toBe("must be an http: or https: URL");
  });
});

// docs/api.md#push-endpoints: nothing inside the service's own network, in any spelling a URL parser accepts.
const INSIDE_THE_NETWORK = [
  ["IPv4 loopback", "https://127.0.0.1/push"],
  ["IPv4 loopback, another address", "https://127.1.2.3:8443/push"],
  ["PostgreSQL's port on loopback", "https://127.0.0.1:5432/"],
  ["decimal IPv4", "https://2130706433/"],
  ["hex IPv4", "https://0x7f000001/"],
  ["dotted hex IPv4", "https://0x7f.0.0.1/"],
  ["octal IPv4", "https://0177.0.0.1/"],
  ["short IPv4", "https://127.1/"],
  ["private 10/8", "https://10.0.0.5/"],
  ["private 172.16/12", "https://172.16.0.1/"],
  ["private 172.31", "https://172.31.255.254/"],
  ["private 192.168/16", "https://192.168.1.1/"],
  ["cloud metadata (link-local)", "https://169.254.169.254/latest/meta-data/"],
  ["shared 100.64/10", "https://100.64.0.1/"],
  ["unspecified IPv4", "https://0.0.0.0/"],
  ["broadcast", "https://255.255.255.255/"],
  ["multicast IPv4", "https://224.0.0.1/"],
  ["reserved (TEST-NET-1)", "https://192.0.2.1/"],
  ["reserved 240/4", "https://240.0.0.1/"],
  ["IPv6 loopback", "https://[::1]/push"],
  ["IPv6 unspecified", "https://[::]/push"],
  ["IPv6 unique local fc00::/7", "https://[fd12:3456::1]/push"],
  ["IPv6 link-local", "https://[fe80::1]/push"],
  ["IPv6 multicast", "https://[ff02::1]/push"],
  ["IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/push"],
  ["IPv4-mapped private, hex form", "https://[::ffff:a00:5]/push"],
  ["IPv4-mapped metadata", "https://[::ffff:169.254.169.254]/"],
  ["IPv4-compatible loopback", "https://[::127.0.0.1]/"],
  ["IPv4-compatible private, hex form", "https://[::a00:5]/"],
  ["NAT64 of loopback", "https://[64:ff9b::7f00:1]/"],
  ["6to4 of loopback", "https://[2002:7f00:1::1]/"],
  ["IPv6 documentation (reserved)", "https://[2001:db8::1]/"],
  ["localhost", "https://localhost/push"],
  ["localhost with a trailing dot", "https://localhost./push"],
  ["a subdomain of localhost", "https://foo.localhost/push"],
  ["LOCALHOST in capitals", "https://LOCALHOST:9000/push"],
] as const;

describe("endpointProblem: no endpoint inside the service's own network", () => {
  it.each(INSIDE_THE_NETWORK)("refuses %s (%s)", (_what, endpoint) => {
    expect(endpointProblem(endpoint, strict)).toBe(ADDRESS_NOT_ALLOWED);
  });

  it("admits them all with allowPrivate (local push services in tests and development)", () => {
    for (const [, endpoint] of INSIDE_THE_NETWORK) {
      expect(endpointProblem(endpoint, { allowHttp: false, allowPrivate: true })).toBeNull();
    }
  });

  it("judges addresses by range: only public unicast is public", () => {
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("2606:4700::1111")).toBe(true);
    expect(isPublicAddress("::ffff:8.8.8.8")).toBe(true);
    // IPv4-compatible: judged as the IPv4 address it carries, public or not.
    expect(isPublicAddress("::8.8.8.8")).toBe(true);
    expect(isPublicAddress("::7f00:1")).toBe(false);
    expect(isPublicAddress("::1")).toBe(false);
    expect(isPublicAddress("::")).toBe(false);
    expect(isPublicAddress("127.0.0.1")).toBe(false);
    expect(isPublicAddress("not an address")).toBe(false);
  });
});

describe("name resolution (the test resolver, never the network)", () => {
  it("finds a name that resolves inside the network, and lets public or unresolvable names through", async () => {
    expect(await resolvesInsideNetwork("https://rebind.test/push", testLookup)).toBe(true);
    expect(await resolvesInsideNetwork("https://metadata.test/push", testLookup)).toBe(true);
    expect(await resolvesInsideNetwork("https://mixed.test/push", testLookup)).toBe(true);
    expect(await resolvesInsideNetwork("https://v6-loopback.test./push", testLookup)).toBe(true);
    expect(await resolvesInsideNetwork("https://push.public.test/push", testLookup)).toBe(false);
    expect(await resolvesInsideNetwork("https://unknown.test/push", testLookup)).toBe(false);
  });

  it("the connect-time lookup refuses any private answer and passes public ones in the form asked for", async () => {
    const lookup = guardedLookup(testLookup);
    const ask = (host: string, all: boolean) =>
      new Promise<unknown>((resolve) => lookup(host, { all }, (err, address, family) => resolve(err ?? { address, family })));
    expect(await ask("rebind.test", false)).toBeInstanceOf(AddressNotAllowedError);
    expect(await ask("mixed.test", true)).toBeInstanceOf(AddressNotAllowedError);
    expect(await ask("push.public.test", false)).toEqual({ address: "93.184.215.14", family: 4 });
    expect(await ask("push.public.test", true)).toEqual({ address: [{ address: "93.184.215.14", family: 4 }], family: undefined });
    expect(await ask("unknown.test", false)).toMatchObject({ code: "ENOTFOUND" });
  });
});

describe("mapWithConcurrency", () => {
  it("keeps the input order and never runs more than the limit at once", async () => {
    let running = 0;
    let peak = 0;
    const out = await mapWithConcurrency([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, n * 2));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(peak).toBe(3);
  });

  it("handles no items", async () => {
    expect(await mapWithConcurrency([], 10, async () => 1)).toEqual([]);
  });
});
