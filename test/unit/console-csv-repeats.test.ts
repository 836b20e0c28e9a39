// Dropping the repeated ids of a paste (console/src/csv.ts, dropRepeatedIds): the new text, read with the
// choice it comes with, gives each id once in the order of first appearance, keeps the header and the
// table's other columns, and says how many ids went.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { dropRepeatedIds, parseProIds, type TableChoice } from "../../console/src/csv.js";

const unique = (ids: string[]) => [...new Set(ids)];

describe("dropRepeatedIds", () => {
  test.each([
    { what: "one id per line, one repeat", text: "pro-1\npro-2\npro-1\n", out: "pro-1\npro-2", dropped: 1 },
    { what: "one id repeated three times", text: "pro-1\npro-1\npro-1\npro-2", out: "pro-1\npro-2", dropped: 2 },
    { what: "ids on one line", text: "pro-1, pro-2, pro-1, pro-3", out: "pro-1,pro-2,pro-3", dropped: 1 },
    {
      what: "a spreadsheet with a header: the later row goes, with its other cells",
      text: "pro_id\tname\npro-1\tAnn\npro-2\tBo\npro-1\tAnn again",
      out: "pro_id\tname\npro-1\tAnn\npro-2\tBo",
      dropped: 1,
    },
    {
      what: "a list wrapped over lines: repeated cells go, an emptied row goes",
      text: "pro-1,pro-2\npro-2,pro-1\npro-3,pro-1",
      out: "pro-1,pro-2\npro-3",
      dropped: 3,
    },
    { what: "a quoted id keeps its comma", text: '"pro,3"\npro-4\n"pro,3"', out: '"pro,3"\npro-4', dropped: 1 },
  ])("$what", ({ text, out, dropped }) => {
    const before = parseProIds(text);
    const result = dropRepeatedIds(text)!;
    expect(result.text).toBe(out);
    expect(result.dropped).toBe(dropped);
    const after = parseProIds(result.text, result.choice);
    expect(after.proIds).toEqual(unique(before.proIds));
    expect(after.duplicates).toEqual([]);
    expect(after.problems).toEqual([]);
  });

  test("the operator's column and header choices hold for the new text", () => {
    const text = "name,code,pro\nAnn,c1,pro-1\nBo,c2,pro-2\nCy,c3,pro-1";
    const list = parseProIds(text);
    const choice: TableChoice = { layout: list.layout, source: 2, header: true };
    const result = dropRepeatedIds(text, choice)!;
    expect(result.text).toBe("name,code,pro\nAnn,c1,pro-1\nBo,c2,pro-2");
    expect(parseProIds(result.text, result.choice)).toMatchObject({
      proIds: ["pro-1", "pro-2"],
      source: 2,
      header: ["name", "code", "pro"],
    });
  });

  test("nothing to drop, or a broken quote mark: no offer", () => {
    expect(dropRepeatedIds("pro-1\npro-2")).toBeNull();
    expect(dropRepeatedIds("")).toBeNull();
    expect(dropRepeatedIds('pro-1\n"pro-2\npro-1')).toBeNull();
  });

  test("any list of ids, in any layout: each id once, in order, and the count of those dropped", () => {
    // A small pool, so that most lists repeat some id.
    const id = fc.integer({ min: 0, max: 9 }).map((n) => `pro-${n}`);
    fc.assert(
      fc.property(fc.array(id, { minLength: 1, maxLength: 40 }), fc.constantFrom("\n", ",", "\t", ";"), (ids, sep) => {
        const text = ids.join(sep);
        const before = parseProIds(text);
        const result = dropRepeatedIds(text);
        if (before.duplicates.length === 0) {
          expect(result).toBeNull();
          return;
        }
        const after = parseProIds(result!.text, result!.choice);
        expect(after.proIds).toEqual(unique(before.proIds));
        expect(result!.dropped).toBe(before.proIds.length - after.proIds.length);
      }),
    );
  });
});
