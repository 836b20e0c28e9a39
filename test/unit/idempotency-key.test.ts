import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, requestFingerprint, takesIdempotencyKey, wellFormedKey } from "../../server/http/idempotency-key.js";

describe("takesIdempotencyKey: REST writes under /api/, not better-auth's, not tRPC", () => {
  it.each([
    ["POST", "/api/admin/restriction/cohorts", true],
    ["PATCH", "/api/notifications/read-all?category=messages", true],
    ["DELETE", "/api/notifications/bulk", true],
    ["POST", "/api/some/future/route", true],
    ["GET", "/api/notifications", false],
    ["PUT", "/api/notifications/x", false],
    ["POST", "/api/auth/sign-in/email", false],
    ["POST", "/trpc/notifications.markAllRead", false],
    ["POST", "/health/live", false],
    ["POST", "/apix/notifications", false],
  ])("%s %s: %s", (method, url, expected) => {
    expect(takesIdempotencyKey(method, url)).toBe(expected);
  });
});

describe("wellFormedKey: 1 to 255 visible ASCII characters", () => {
  it.each(["k", "k".repeat(255), "550e8400-e29b-41d4-a716-446655440000", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"])("accepts %j", (key) => {
    expect(wellFormedKey(key)).toBe(key);
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["a space", "a b"],
    ["a tab", "a\tb"],
    ["a control character", "a\u0000b"],
    ["DEL", "a\u007fb"],
    ["a non-ASCII character", "caf\u00e9"],
    ["a repeated header", ["a", "b"]],
  ])("refuses %s", (_what, header) => {
    expect(wellFormedKey(header)).toBeNull();
  });
});

describe("canonicalJson", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it("drops undefined fields as JSON.stringify does", () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined])).toBe("[null]");
  });

  it("is JSON that parses back to the same value, whatever the key order", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        const reversed = JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
          v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        );
        expect(canonicalJson(reversed)).toBe(text);
      }),
    );
  });
});

describe("requestFingerprint", () => {
  const base = ["POST", "/api/admin/restriction/cohorts", { cohortNumber: 1, proIds: ["a"] }] as const;

  it("is a sha256 in hex, the same for the same request in any key order", () => {
    const fingerprint = requestFingerprint(...base);
    expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint("POST", "/api/admin/restriction/cohorts", { proIds: ["a"], cohortNumber: 1 })).toBe(fingerprint);
  });

  it("differs by method, path, query and body", () => {
    const fingerprint = requestFingerprint(...base);
    const others = [
      requestFingerprint("PATCH", base[1], base[2]),
      requestFingerprint("POST", "/api/admin/restriction/cohorts/", base[2]),
      requestFingerprint("POST", "/api/admin/restriction/cohorts?x=1", base[2]),
      requestFingerprint("POST", base[1], { cohortNumber: 2, proIds: ["a"] }),
      requestFingerprint("POST", base[1], undefined),
    ];
    expect(new Set([fingerprint, ...others]).size).toBe(others.length + 1);
  });

  it("tells no body from an empty object", () => {
    expect(requestFingerprint("POST", "/api/x", undefined)).not.toBe(requestFingerprint("POST", "/api/x", {}));
  });
});
