// Account rules in words (server/accounts/rules.ts): who is an acting admin, when taking one out leaves none,
// when a ban ends.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { banEnds, DAY_MS, isActingAdmin, isBannedNow, wouldLeaveNoAdmin } from "../../server/accounts/rules.js";

const now = Date.parse("2026-11-28T10:00:00Z");

describe("isBannedNow and isActingAdmin", () => {
  it("a ban without an end holds; one that ended does not; an admin banned now does not act", () => {
    expect(isBannedNow({ banned: true, banExpires: null }, now)).toBe(true);
    expect(isBannedNow({ banned: true, banExpires: new Date(now - 1) }, now)).toBe(false);
    expect(isBannedNow({ banned: false, banExpires: new Date(now + DAY_MS) }, now)).toBe(false);
    expect(isActingAdmin({ role: "admin", banned: true, banExpires: new Date(now + 1) }, now)).toBe(false);
    expect(isActingAdmin({ role: "admin", banned: null, banExpires: null }, now)).toBe(true);
    expect(isActingAdmin({ role: "user", banned: false, banExpires: null }, now)).toBe(false);
  });
});

describe("wouldLeaveNoAdmin", () => {
  it("is true exactly when the target is the only acting admin", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom("a", "b", "c", "d"), { maxLength: 4 }),
        fc.constantFrom("a", "b", "c", "d"),
        (admins, target) => {
          expect(wouldLeaveNoAdmin(admins, target)).toBe(admins.length === 1 && admins[0] === target);
        },
      ),
    );
  });
});

describe("banEnds", () => {
  it("is days from now, or null for a ban without an end", () => {
    expect(banEnds(7, now)?.getTime()).toBe(now + 7 * DAY_MS);
    expect(banEnds(null, now)).toBeNull();
    expect(banEnds(undefined, now)).toBeNull();
  });
});
