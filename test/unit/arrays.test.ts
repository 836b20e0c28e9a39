import { describe, expect, it } from "vitest";
import { arrayLiteral } from "../../db/arrays.js";

describe("arrayLiteral: a whole array as one text parameter", () => {
  it("quotes every text element, escaping backslashes and double quotes", () => {
    expect(arrayLiteral(["a", "b,c", 'd"e', "f\\g", "NULL", "{x}", ""])).toBe('{"a","b,c","d\\"e","f\\\\g","NULL","{x}",""}');
  });

  it("writes booleans as t and f, and an empty array as {}", () => {
    expect(arrayLiteral([true, false])).toBe("{t,f}");
    expect(arrayLiteral([])).toBe("{}");
  });
});
