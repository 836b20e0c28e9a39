import { describe, expect, it } from "vitest";
import { hasMore, normalizeLimit, normalizePage, pageWindow } from "../../server/notifications/pagination.js";
import { containsPattern } from "../../server/notifications/search.js";

// The procedure's side of SPEC rule 8, on numbers; how REST query text becomes those numbers (a
// non-numeric value, a repeated key) is the REST edge's, in rest-query.test.ts.

describe("normalizePage: default 1; zero → 1; below 1 → 1", () => {
  it.each([
    ["missing", undefined, 1],
    ["zero", 0, 1],
    ["negative", -3, 1],
    ["fraction below 1", 0.5, 1],
    ["fractional (floored)", 3.9, 3],
    ["plain", 5, 5],
    ["NaN", Number.NaN, 1],
    ["Infinity", Number.POSITIVE_INFINITY, 1],
  ])("%s: %j → %d", (_case, value, expected) => {
    expect(normalizePage(value)).toBe(expected);
  });

  it("keeps huge pages to an exact offset", () => {
    const page = normalizePage(1e30);
    expect(Number.isSafeInteger(page * 100)).toBe(true);
  });
});

describe("normalizeLimit: default 30; zero → 30; clamped to 1..100", () => {
  it.each([
    ["missing", undefined, 30],
    ["zero", 0, 30],
    ["fraction below 1 (floors to zero)", 0.9, 30],
    ["negative (clamped)", -5, 1],
    ["negative fraction (floored, clamped)", -0.5, 1],
    ["one", 1, 1],
    ["fractional (floored)", 10.7, 10],
    ["exactly 100", 100, 100],
    ["over 100 (clamped)", 101, 100],
    ["far over 100", 1e9, 100],
    ["Infinity", Number.POSITIVE_INFINITY, 30],
  ])("%s: %j → %d", (_case, value, expected) => {
    expect(normalizeLimit(value)).toBe(expected);
  });
});

describe("pageWindow and hasMore", () => {
  it("offset = (page - 1) * limit", () => {
    expect(pageWindow(3, 20)).toEqual({ page: 3, limit: 20, offset: 40 });
    expect(pageWindow(undefined, undefined)).toEqual({ page: 1, limit: 30, offset: 0 });
  });

  it("has_more is true exactly when page * limit < total", () => {
    const window = pageWindow(2, 10);
    expect(hasMore(window, 21)).toBe(true);
    expect(hasMore(window, 20)).toBe(false);
    expect(hasMore(window, 0)).toBe(false);
  });
});

describe("containsPattern: search text matched literally, anywhere", () => {
  it.each([
    ["plain", "hello", "%hello%"],
    ["percent", "50%", "%50\\%%"],
    ["underscore", "a_b", "%a\\_b%"],
    ["backslash", "C:\\dir", "%C:\\\\dir%"],
    ["all three", "\\%_", "%\\\\\\%\\_%"],
    ["empty", "", "%%"],
  ])("%s: %j → %j", (_case, text, pattern) => {
    expect(containsPattern(text)).toBe(pattern);
  });
});
