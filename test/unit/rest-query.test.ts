import { describe, expect, it } from "vitest";
import { normalizeLimit, normalizePage } from "../../server/notifications/pagination.js";
import { queryNumber, readQuery } from "../../server/rest/query.js";

// SPEC rule 8 over REST: query text read at the edge (rest/query.ts), then normalised by the procedure.
const LIST = { category: "text", search: "text", page: "number", limit: "number" } as const;
const pageOf = (query: Record<string, unknown>) => normalizePage(readQuery(LIST, query).input.page as number | undefined);
const limitOf = (query: Record<string, unknown>) => normalizeLimit(readQuery(LIST, query).input.limit as number | undefined);

describe("page from the query string: default 1; non-numeric or zero → 1; below 1 → 1", () => {
  it.each([
    ["missing", undefined, 1],
    ["empty", "", 1],
    ["non-numeric", "abc", 1],
    ["numeric prefix", "2abc", 1],
    ["zero", "0", 1],
    ["negative", "-3", 1],
    ["fraction below 1", "0.5", 1],
    ["fractional (floored)", "2.7", 2],
    ["plain", "4", 4],
    ["whitespace", " 6 ", 6],
    ["Infinity is not numeric", "Infinity", 1],
    ["huge", "1e30", normalizePage(1e30)],
    ["repeated key: first value", ["3", "9"], 3],
    ["repeated key with a bad first value", ["x", "9"], 1],
    ["empty array", [], 1],
    ["not text", true, 1],
  ])("%s: %j → %d", (_case, value, expected) => {
    expect(pageOf({ page: value })).toBe(expected);
  });
});

describe("limit from the query string: default 30; non-numeric or zero → 30; clamped to 1..100", () => {
  it.each([
    ["missing", undefined, 30],
    ["empty", "", 30],
    ["non-numeric", "lots", 30],
    ["zero", "0", 30],
    ["fraction below 1 (floors to zero)", "0.9", 30],
    ["negative (clamped)", "-5", 1],
    ["fractional (floored)", "10.7", 10],
    ["plain", "50", 50],
    ["over 100 (clamped)", "101", 100],
    ["Infinity is not numeric", "Infinity", 30],
    ["repeated key: first value", ["20", "5"], 20],
    ["repeated key with a bad first value", ["x", "5"], 30],
  ])("%s: %j → %d", (_case, value, expected) => {
    expect(limitOf({ limit: value })).toBe(expected);
  });
});

describe("readQuery", () => {
  it("reads the declared keys only: text as given, numbers from their text", () => {
    expect(readQuery(LIST, { category: "billing", search: "", page: "2", limit: "x", other: "1" })).toEqual({
      input: { category: "billing", search: "", page: 2 },
      repeats: [],
    });
  });

  it("takes the first value of a repeated key and returns the later ones apart, each as an input of its own", () => {
    expect(readQuery(LIST, { category: ["system", "billing"], search: ["a", "b", "c"], page: ["2", "abc", "3"] })).toEqual({
      input: { category: "system", search: "a", page: 2 },
      repeats: [{ category: "billing" }, { search: "b" }, { search: "c" }, { page: 3 }],
    });
  });

  it("queryNumber: finite numbers only", () => {
    expect([" 5 ", "0x10", "1e3", "-0", "", " ", "NaN", "-Infinity", "1e309", "\u0663"].map(queryNumber)).toEqual([
      5,
      16,
      1000,
      -0,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
