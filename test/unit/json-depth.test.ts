// jsonNestsDeeperThan counts a JSON text's nesting before it is parsed (issue K): it must agree with the
// depth of the value the text holds, brackets inside strings not counted, whatever the text's length.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from "../../server/http/json-depth.js";

/** How many arrays and objects of `value` nest inside each other at its deepest. */
const depthOf = (value: unknown): number =>
  typeof value === "object" && value !== null ? 1 + Math.max(0, ...Object.values(value).map(depthOf)) : 0;

describe("jsonNestsDeeperThan", () => {
  it("agrees with the depth of the value the text holds", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.nat({ max: 14 }), (value, max) => {
        expect(jsonNestsDeeperThan(JSON.stringify(value), max)).toBe(depthOf(value) > max);
      }),
    );
  });

  it("refuses one level past the bound, and no short text, at the service's bound", () => {
    expect(jsonNestsDeeperThan("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestsDeeperThan("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    // Unclosed, as a refused text may be: only its openings count.
    expect(jsonNestsDeeperThan("[".repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonNestsDeeperThan(JSON.stringify({ json: { proId: "[[[[[[[[" } }))).toBe(false);
  });
});
