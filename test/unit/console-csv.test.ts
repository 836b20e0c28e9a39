// The console's reading of pasted or uploaded pro ids (console/src/csv.ts): what it sends and what it refuses.
import { describe, expect, test } from "vitest";
import { MAX_PROS, parseProIds } from "../../console/src/csv.js";

describe("parseProIds", () => {
  test("one per line or comma separated, blank cells and surrounding spaces dropped", () => {
    expect(parseProIds(" pro-1 \r\npro-2,pro-3,,\n\n pro-4").proIds).toEqual(["pro-1", "pro-2", "pro-3", "pro-4"]);
  });

  test("an optional proId header, a byte-order mark and quoted cells", () => {
    const list = parseProIds('\uFEFFproId\n"pro-1"\n"pro ""2"""');
    expect(list.proIds).toEqual(["pro-1", 'pro "2"']);
    expect(list.problems).toEqual([]);
  });

  test("a header only in the first cell: a later proId is an id", () => {
    expect(parseProIds("pro-1\nproId").proIds).toEqual(["pro-1", "proId"]);
  });

  test("repeats are listed once each and block sending", () => {
    const list = parseProIds("a\nb\na\nc\nb\na");
    expect(list.duplicates).toEqual(["a", "b"]);
    expect(list.problems).toEqual(["Remove the repeated ids (2)."]);
  });

  test("1 to 500 ids, each at most 200 characters", () => {
    expect(parseProIds("proId\n").problems).toEqual(["List at least 1 pro id."]);
    const many = Array.from({ length: MAX_PROS + 1 }, (_, i) => `pro-${i}`).join("\n");
    expect(parseProIds(many).problems).toEqual([`A cohort holds at most 500 pros; this list has 501.`]);
    expect(parseProIds(Array.from({ length: MAX_PROS }, (_, i) => `pro-${i}`).join(",")).problems).toEqual([]);
    expect(parseProIds(`ok\n${"x".repeat(201)}`).tooLong).toHaveLength(1);
  });
});
