// The bad-input models of push subscriptions, service API keys and the deliveries view (bad-input-models.ts).
import fc from "fast-check";
import { apiKeyScopes } from "../../db/schema/index.js";
import { bad, badLate, j, nonBlank, segments, storable, text, times, validOf } from "./bad-input-arbitraries.js";
import type { RouteModel } from "./bad-input-models.js";
import { keyOfLength } from "./fixtures.js";

const N = "/api/notifications";
const K = "/api/admin/api-keys";

export const pushSubscriptionModels: Record<string, RouteModel> = {
  [`POST ${N}/subscriptions`]: {
    body: () => ({
      endpoint: {
        required: true,
        valid: fc
          .oneof(
            fc.constantFrom("https://push.invalid/admin-1", "https://push.invalid/a?b=c#d", "https://[::1]/x"),
            text(40)
              .filter(storable)
              .map((s) => `https://push.invalid/${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "x"))}`),
          )
          .map(j),
        invalid: fc.oneof(
          bad("", "   ", 5, null, [], {}, `https://push.invalid/${times("a", 2049)}`, "https://push.invalid/a\u0000b"),
          badLate(
            "http://push.invalid/x",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "/relative",
            "https://user:pass@push.invalid/x",
            "not a url",
            "ws://push.invalid/x",
          ),
        ),
      },
      p256dh: {
        required: true,
        valid: fc.uint8Array({ minLength: 65, maxLength: 65 }).map((b) => j(Buffer.from(b).toString("base64url"))),
        invalid: bad(
          "",
          "x",
          keyOfLength(64),
          keyOfLength(66),
          Buffer.alloc(65, 0xfb).toString("base64"),
          "====",
          5,
          null,
          `${keyOfLength(65)}\u0000`,
        ),
      },
      auth: {
        required: true,
        valid: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => j(Buffer.from(b).toString("base64url"))),
        invalid: bad("", "a", keyOfLength(15), keyOfLength(17), 5, null, [], "a\u0000"),
      },
    }),
  },
  [`DELETE ${N}/subscriptions`]: {
    body: () => ({
      endpoint: {
        required: true,
        valid: fc
          .oneof(
            fc.constantFrom("https://push.invalid/admin-1"),
            text(2048).filter((s) => nonBlank(s) && storable(s)),
          )
          .map(j),
        invalid: bad("", " ", 5, null, [], times("e", 2049), "a\u0000b"),
      },
    }),
  },
};

export const apiKeyModels: Record<string, RouteModel> = {
  [`POST ${K}`]: {
    body: () => ({
      name: {
        required: true,
        valid: text(100)
          .filter((s) => nonBlank(s) && storable(s))
          .map(j),
        invalid: bad("", "  ", times("n", 101), 5, null, [], {}, "a\u0000b"),
      },
      producer: {
        valid: text(100)
          .filter((s) => nonBlank(s) && storable(s))
          .map(j),
        invalid: bad("", "  ", times("p", 101), 5, null, [], {}, "a\u0000b"),
      },
      scopes: {
        required: true,
        valid: fc.uniqueArray(fc.constantFrom(...apiKeyScopes), { minLength: 1, maxLength: 2 }).map(j),
        invalid: bad([], "flags:read", ["flags:write"], ["FLAGS:READ"], ["flags:read", "flags:read"], [5], [null], null, {}),
      },
      expiresInDays: {
        valid: fc.oneof(fc.integer({ min: 1, max: 3650 }).map(j), validOf(null, 1, 3650)),
        invalid: bad(0, -1, 3651, 1.5, "30", true, [], {}),
      },
    }),
  },
  [`GET ${K}`]: {},
  "GET /api/admin/deliveries": {
    query: () => ({
      producer: { exact: true, valid: text(100).filter(storable), invalid: fc.constantFrom(times("p", 101), "a\u0000b") },
      userId: { exact: true, valid: text(200).filter(storable), invalid: fc.constantFrom(times("u", 201), "a\u0000b") },
      userEmail: { exact: true, valid: text(320).filter(storable), invalid: fc.constantFrom(times("e", 321), "a\u0000b") },
      limit: { exact: true, valid: fc.integer({ min: 1, max: 100 }).map(String), invalid: fc.constantFrom("", "0", "101", "1.5", "abc") },
    }),
  },
  [`DELETE ${K}/:id`]: { params: { id: () => segments([], true) } },
};
