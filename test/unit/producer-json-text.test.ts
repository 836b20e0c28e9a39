// The rule for text nested in a producer's `data` (server/http/json-text.ts): the first string, key or
// value, at any depth, that PostgreSQL cannot store as given, with its path.
import { describe, expect, it } from "vitest";
import { firstUnstorableText } from "../../server/http/json-text.js";

describe("firstUnstorableText", () => {
  it("finds nothing in storable JSON, emoji (a surrogate pair) and empty keys included", () => {
    expect(firstUnstorableText({ a: "x", b: [1, null, true, { "": "\ud83d\ude00" }], c: { d: "' OR 1=1 --" } })).toBeNull();
  });

  it("names a value by its path, in objects and arrays at any depth", () => {
    expect(firstUnstorableText({ title: "\ud800" })).toEqual({
      path: ["title"],
      message: "must be well-formed Unicode (no lone surrogates)",
    });
    expect(firstUnstorableText({ a: { b: ["ok", "a\u0000b"] } })).toEqual({
      path: ["a", "b", 1],
      message: "must not contain NUL characters",
    });
  });

  it("names a bad key by its object's path, the key escaped", () => {
    expect(firstUnstorableText({ a: { "k\u0000": 1 } })).toEqual({
      path: ["a"],
      message: 'the key "k\\u0000" must not contain NUL characters',
    });
  });

  it("reports the first problem in document order", () => {
    expect(firstUnstorableText({ a: ["fine", { b: "\udfff" }], c: "\u0000" })?.path).toEqual(["a", 1, "b"]);
  });

  it("walks nesting far deeper than the call stack would allow", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(firstUnstorableText(deep)?.path).toHaveLength(100_000);
  });
});
