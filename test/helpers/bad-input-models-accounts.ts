// Bad-input models of the account routes (docs/api.md#accounts), beside bad-input-models.ts: the ids they
// name come from a pool of disposable users, never the calling admin, so a valid request may ban, demote or
// remove its target and the run goes on.
import fc from "fast-check";
import { bad, codePoints, j, nonBlank, type Segment, segments, storable, text, times, validOf } from "./bad-input-arbitraries.js";
import type { RouteModel } from "./bad-input-models.js";

export const U = "/api/admin/users";

/** An id the account routes accept: 1 to 200 characters of storable text (a longer one is 400, not 404). */
export const validUserId = (s: string) => s.length >= 1 && codePoints(s) <= 200 && storable(s);

export function accountModels(userIds: () => string[]): Record<string, RouteModel> {
  const userId = (): fc.Arbitrary<Segment> => segments(userIds(), false);
  const password = {
    required: true,
    valid: fc.string({ minLength: 12, maxLength: 40 }).filter(storable).map(j),
    invalid: bad("", "short", times("p", 129), 12, null, [], {}, "a-long-password\u0000"),
  };
  // Bodies are strict objects: a key the model does not know is itself refused.
  const onUser = (body?: RouteModel["body"]): RouteModel => ({ params: { id: userId }, ...(body ? { body, strict: true } : {}) });
  return {
    [`GET ${U}`]: {
      query: () => ({
        search: { exact: true, valid: text(200).filter(storable), invalid: fc.constantFrom(times("s", 201), "a\u0000b") },
        limit: { exact: true, valid: fc.integer({ min: 1, max: 100 }).map(String), invalid: fc.constantFrom("", "0", "101", "1.5", "abc") },
        offset: { exact: true, valid: fc.nat(50).map(String), invalid: fc.constantFrom("-1", "1.5", "abc", "") },
      }),
    },
    [`POST ${U}`]: {
      strict: true,
      body: () => ({
        email: {
          required: true,
          valid: fc
            .emailAddress()
            .filter((e) => e.length <= 254)
            .map(j),
          invalid: bad("", "not-an-email", `${times("e", 250)}@x.io`, 5, null, [], {}, "a\u0000b@x.io"),
        },
        password,
        name: {
          required: true,
          valid: text(100)
            .filter((s) => nonBlank(s) && storable(s))
            .map(j),
          invalid: bad("", "  ", times("n", 101), 5, null, [], {}, "a\u0000b"),
        },
        role: { valid: validOf("user", "admin"), invalid: bad("", "owner", "Admin", ["admin"], "admin,user", 1, null) },
      }),
    },
    [`POST ${U}/:id/role`]: onUser(() => ({
      role: { required: true, valid: validOf("user", "admin"), invalid: bad("", "owner", "ADMIN", ["admin"], "admin,x", 1, null, {}) },
    })),
    [`POST ${U}/:id/password`]: onUser(() => ({ password })),
    [`POST ${U}/:id/ban`]: onUser(() => ({
      reason: {
        required: true,
        valid: text(500)
          .filter((s) => nonBlank(s) && storable(s))
          .map(j),
        invalid: bad("", " ", times("r", 501), 5, [], {}, "a\u0000b"),
      },
      expiresInDays: {
        valid: fc.oneof(fc.integer({ min: 1, max: 3650 }).map(j), validOf(null)),
        invalid: bad(0, -1, 3651, 1.5, 1e20, "7", true, [], {}),
      },
    })),
    [`POST ${U}/:id/unban`]: onUser(),
    [`POST ${U}/:id/revoke-sessions`]: onUser(),
    [`DELETE ${U}/:id`]: onUser(),
    [`POST ${U}/:id/impersonate`]: onUser(),
    "POST /api/admin/impersonation/stop": {},
  };
}
