import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../server/audit/listing-cursor.js";

describe("audit cursor", () => {
  it("round-trips a sequence number", () => {
    for (const seq of [1, 42, 9_007_199_254_740_991]) expect(decodeCursor(encodeCursor(seq))).toBe(seq);
  });

  it.each([
    "",
    "not a cursor!",
    "c2VxOg",
    Buffer.from("seq:0").toString("base64url"),
    Buffer.from("seq:-1").toString("base64url"),
    Buffer.from("seq:1e3").toString("base64url"),
    Buffer.from("id:42").toString("base64url"),
    Buffer.from("seq:99999999999999999").toString("base64url"),
    "x".repeat(65),
  ])("refuses %j", (cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });
});
