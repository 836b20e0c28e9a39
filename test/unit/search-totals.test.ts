// The search totals' bounded map (server/memory/search-totals.ts): what it keeps and what it lets go. That a
// total is used only in the inbox state it was counted in is the database's part, tested against count(*) in
// test/integration/notification-counts.property.test.ts and test/integration/search-totals.test.ts.
import { describe, expect, it } from "vitest";
import { createSearchTotals, searchTotalKey } from "../../server/memory/search-totals.js";

describe("search totals", () => {
  it("keys a search by user, category and pattern, none of which can pass for another", () => {
    const keys = [
      searchTotalKey("u1", null, "%a%"),
      searchTotalKey("u1", "billing", "%a%"),
      searchTotalKey("u1", null, "%b%"),
      searchTotalKey("u2", null, "%a%"),
      // No part can reach into the next.
      searchTotalKey("u1", null, '","billing","%a%'),
      searchTotalKey('u1","billing', null, "%a%"),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("answers what it was told last for a key", () => {
    const totals = createSearchTotals();
    totals.remember("k", { version: "1,2", total: 3 });
    totals.remember("k", { version: "1,4", total: 2 });
    expect(totals.get("k")).toEqual({ version: "1,4", total: 2 });
    expect(totals.get("other")).toBeUndefined();
  });

  it("lets the least recently used total go when full", () => {
    const totals = createSearchTotals(2);
    totals.remember("a", { version: "1", total: 1 });
    totals.remember("b", { version: "2", total: 2 });
    totals.get("a");
    totals.remember("c", { version: "3", total: 3 });
    expect([totals.get("a"), totals.get("b"), totals.get("c")].map((k) => k?.total)).toEqual([1, undefined, 3]);
    expect(totals.size()).toBe(2);
  });
});
