// The console's reading of pasted or uploaded pro ids (console/src/csv.ts): the delimiter, the header row,
// the id column, and what it refuses before anything is sent.
import { describe, expect, test } from "vitest";
import { columnOptions, detectHeader, MAX_PROS, parseProIds, readTable, suggestSource } from "../../console/src/csv.js";

describe("parseProIds", () => {
  // What an operator pastes or uploads, and the ids the form sends.
  test.each([
    {
      what: "a spreadsheet's two columns, no header",
      text: "pro-0200\tAlice\npro-0201\tBob\n",
      ids: ["pro-0200", "pro-0201"],
      header: null,
    },
    { what: "a CSV with a pro_id header", text: "pro_id,name\npro-1,Ann\npro-2,Bo", ids: ["pro-1", "pro-2"], header: ["pro_id", "name"] },
    { what: "the id column second", text: "name,Pro ID\nAnn,pro-1\nBo,pro-2", ids: ["pro-1", "pro-2"], header: ["name", "Pro ID"] },
    { what: "a quoted comma inside an id", text: '"pro,3"', ids: ["pro,3"], header: null },
    { what: "quoted ids and doubled quotes", text: '"pro-1"\n"pro ""2"""', ids: ["pro-1", 'pro "2"'], header: null },
    { what: "a Pro IDs header", text: "Pro IDs\npro-1", ids: ["pro-1"], header: ["Pro IDs"] },
    { what: "an id header", text: "id\npro-1\npro-2", ids: ["pro-1", "pro-2"], header: ["id"] },
    { what: "a proId header", text: "proId\npro-1", ids: ["pro-1"], header: ["proId"] },
    { what: "a header by its looks over ids", text: "Restricted pros\npro-1\npro-2", ids: ["pro-1", "pro-2"], header: ["Restricted pros"] },
    {
      what: "semicolons, a name holding a comma",
      text: "pro_id;name\npro-1;Smith, Ann\npro-2;Bo",
      ids: ["pro-1", "pro-2"],
      header: ["pro_id", "name"],
    },
    { what: "ids separated by semicolons on one line", text: "pro-1;pro-2;pro-3", ids: ["pro-1", "pro-2", "pro-3"], header: null },
    { what: "pipes", text: "pro-1|Ann\npro-2|Bo", ids: ["pro-1", "pro-2"], header: null },
    { what: "one column", text: "pro-1\npro-2\npro-3", ids: ["pro-1", "pro-2", "pro-3"], header: null },
    { what: "ids without digits, one per line", text: "alpha\nbeta", ids: ["alpha", "beta"], header: null },
    { what: "one line, comma separated", text: "pro-1, pro-2,pro-3", ids: ["pro-1", "pro-2", "pro-3"], header: null },
    {
      what: "a comma list wrapped over lines",
      text: "pro-1, pro-2\npro-3, pro-4",
      ids: ["pro-1", "pro-2", "pro-3", "pro-4"],
      header: null,
    },
    {
      what: "lines of unequal length",
      text: " pro-1 \r\npro-2,pro-3,,\n\n pro-4",
      ids: ["pro-1", "pro-2", "pro-3", "pro-4"],
      header: null,
    },
    {
      what: "a proId header over lines of unequal length",
      text: "proId\npro-1\npro-2,pro-3",
      ids: ["pro-1", "pro-2", "pro-3"],
      header: ["proId"],
    },
    { what: "CRLF line ends", text: "pro-1\r\npro-2\r\n", ids: ["pro-1", "pro-2"], header: null },
    { what: "a byte-order mark before the header", text: "\uFEFFproId\npro-1", ids: ["pro-1"], header: ["proId"] },
    { what: "blank lines and trailing spaces", text: "\n  pro-1   \n\n\t\npro-2 \n\n", ids: ["pro-1", "pro-2"], header: null },
    { what: "a later proId is an id", text: "pro-1\nproId", ids: ["pro-1", "proId"], header: null },
    { what: "nothing", text: "", ids: [], header: null },
  ])("$what", ({ text, ids, header }) => {
    const list = parseProIds(text);
    expect(list.proIds).toEqual(ids);
    expect(list.header).toEqual(header);
  });

  test("nothing typed is blank, not a problem; a header alone is", () => {
    expect(parseProIds("  \n ")).toMatchObject({ blank: true, problems: [] });
    expect(parseProIds("proId\n")).toMatchObject({ blank: false, problems: ["List at least 1 pro id."] });
  });

  test("the operator's column choice: any column, or every cell", () => {
    const text = "pro_id,name\npro-1,Ann\npro-2,Bo";
    const { layout, source } = parseProIds(text);
    expect(source).toBe(0);
    expect(parseProIds(text, { layout, source: 1 }).proIds).toEqual(["Ann", "Bo"]);
    expect(parseProIds(text, { layout, source: "all" }).proIds).toEqual(["pro-1", "Ann", "pro-2", "Bo"]);
  });

  test("the operator can say the first row is data after all", () => {
    const text = "Pro IDs\npro-1";
    const { layout, headerDetected } = parseProIds(text);
    expect(headerDetected).toBe(true);
    expect(parseProIds(text, { layout, header: false })).toMatchObject({
      proIds: ["Pro IDs", "pro-1"],
      header: null,
      headerDetected: true,
    });
  });

  test("a choice made for one table does not carry over to another paste", () => {
    const { layout } = parseProIds("pro_id,name\npro-1,Ann");
    expect(parseProIds("code\tpro\nx1\tpro-9", { layout, source: 0 }).proIds).toEqual(["pro-9"]);
  });

  test("rows without a cell in the id column are left out and counted", () => {
    expect(parseProIds("pro_id,name\npro-1,Ann\n,Bo\npro-3")).toMatchObject({ proIds: ["pro-1", "pro-3"], rowsWithoutId: 1 });
  });

  test("a quote left open is a problem: the ids after it cannot be trusted", () => {
    expect(parseProIds('pro-1\n"pro-2\npro-3').problems).toEqual(["A quote mark on line 2 is not closed or is followed by more text."]);
  });

  test("repeats are listed once each and block sending", () => {
    const list = parseProIds("a\nb\na\nc\nb\na");
    expect(list.duplicates).toEqual(["a", "b"]);
    expect(list.problems).toEqual(["Remove the repeated ids (2)."]);
  });

  test("1 to 500 ids, each at most 200 characters", () => {
    const many = Array.from({ length: MAX_PROS + 1 }, (_, i) => `pro-${i}`).join("\n");
    expect(parseProIds(many).problems).toEqual([`A cohort holds at most 500 pros; this list has 501.`]);
    expect(parseProIds(Array.from({ length: MAX_PROS }, (_, i) => `pro-${i}`).join(",")).problems).toEqual([]);
    expect(parseProIds(`ok\n${"x".repeat(201)}`).tooLong).toHaveLength(1);
  });
});

describe("the table's reading, step by step", () => {
  test("the delimiter: a tab decides, else the most regular split", () => {
    expect(readTable("pro-1\tSmith, Ann, Jr\npro-2\tBo").delimiter).toBe("\t");
    expect(readTable("a;b\nc;d").delimiter).toBe(";");
    expect(readTable("a|b\nc|d").delimiter).toBe("|");
    expect(readTable("a,b\nc,d").delimiter).toBe(",");
  });

  test("a header: a cell naming an id in any case or spacing, or words over ids", () => {
    for (const name of ["proId", "pro_id", "Pro IDs", "id", "pro", "Pro ID", "PRO-ID", " pro id "]) {
      expect(detectHeader([[name], ["pro-1"]]), name).toBe(true);
    }
    expect(detectHeader([["pro-1"], ["pro-2"]])).toBe(false);
    expect(detectHeader([["Alice"], ["Bob"]])).toBe(false);
    expect(detectHeader([["proId"]])).toBe(true);
    expect(detectHeader([["pro-1", "pro-2"]])).toBe(false);
  });

  test("the suggested id column: named by the header, else the one that looks like ids", () => {
    expect(
      suggestSource(
        [
          ["name", "pro"],
          ["Ann", "pro-1"],
        ],
        true,
      ),
    ).toBe(1);
    expect(
      suggestSource(
        [
          ["Alice", "pro-0200"],
          ["Bob", "pro-0201"],
        ],
        false,
      ),
    ).toBe(1);
    expect(
      suggestSource(
        [
          ["Alice", "Smith"],
          ["Bob", "Jones"],
        ],
        false,
      ),
    ).toBe(0);
    expect(
      suggestSource(
        [
          ["pro-1", "2024-01-05"],
          ["pro-2", "2024-01-06"],
        ],
        false,
      ),
    ).toBe(0);
  });

  test("the column options name each column by its header or first values", () => {
    expect(
      columnOptions(
        [
          ["pro_id", "name"],
          ["pro-1", "Ann"],
        ],
        true,
      ).map((o) => o.label),
    ).toEqual(["“pro_id”: pro-1", "“name”: Ann", "Every cell, as one list"]);
    expect(
      columnOptions(
        [
          ["a1", "b"],
          ["a2", "c"],
          ["a3", "d"],
          ["a4", "e"],
        ],
        false,
      )[0]?.label,
    ).toBe("Column 1: a1, a2, a3, …");
    expect(columnOptions([["pro-1", "pro-2"]], false)).toEqual([]);
  });
});
