// The tRPC door's success text (server/trpc/answer-text.ts), written from the procedure's output schema, must
// read back as what JSON.stringify writes, which is what tRPC's own handler sends: every key, extra ones
// included, every Date as superjson notes it, and a value its schema does not allow written all the same.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keepingUnknownKeys, successText } from "../../server/trpc/answer-text.js";
import { serializeAnswer } from "../../server/trpc/transformer.js";

/** What the door sends for `data` from `path`, read back; and what JSON.stringify would have sent. */
function both(path: string, data: unknown) {
  const answer = serializeAnswer(data);
  return {
    sent: JSON.parse(successText(path, data, answer)) as unknown,
    expected: JSON.parse(JSON.stringify({ result: { data: answer } })) as unknown,
  };
}

const storedFlag = fc.record({
  proId: fc.string(),
  restrictionActive: fc.boolean(),
  cohortId: fc.option(fc.string(), { nil: null }),
  updatedAt: fc.date({ noInvalidDate: true }),
});
const noFlag = fc.record({ proId: fc.string(), restrictionActive: fc.constant(false) });
/** Keys an answer might carry beyond its schema, with JSON or a Date. */
const extras = fc.dictionary(
  fc.string().filter((k) => !["proId", "restrictionActive", "cohortId", "updatedAt", "__proto__"].includes(k)),
  fc.oneof(fc.jsonValue(), fc.date({ noInvalidDate: true })),
  { maxKeys: 3 },
);

describe("the tRPC door's success text", () => {
  it("reads back as JSON.stringify's, for either of getPro's answers and keys beyond its schema", () => {
    fc.assert(
      fc.property(fc.oneof(storedFlag, noFlag), extras, (flag, extra) => {
        const { sent, expected } = both("restriction.getPro", { ...flag, ...extra });
        expect(sent).toStrictEqual(expected);
      }),
    );
  });

  it("keeps a key the schema does not name, and its Date's note", () => {
    const at = new Date("2026-12-05T10:00:00.123Z");
    const { sent } = both("restriction.getPro", {
      proId: "p1",
      restrictionActive: true,
      cohortId: null,
      updatedAt: at,
      seenAt: new Date(at),
    });
    expect(sent).toEqual({
      result: {
        data: {
          json: { proId: "p1", restrictionActive: true, cohortId: null, updatedAt: at.toISOString(), seenAt: at.toISOString() },
          meta: { values: { updatedAt: ["Date"], seenAt: ["Date"] }, v: 1 },
        },
      },
    });
  });

  it("writes an answer its schema does not allow as JSON.stringify does (a required key missing, a wrong type)", () => {
    for (const data of [
      { proId: "p1", restrictionActive: true },
      { proId: 7, restrictionActive: "yes" },
    ]) {
      const { sent, expected } = both("restriction.getPro", data);
      expect(sent).toStrictEqual(expected);
    }
  });

  it("writes what superjson annotates, and a procedure without a contract, as JSON.stringify does", () => {
    for (const [path, data] of [
      ["restriction.getPro", { proId: "p1", restrictionActive: false, extra: undefined }],
      ["restriction.getPro", new Map([["k", 1]])],
      ["no.such", { a: 1 }],
    ] as const) {
      const { sent, expected } = both(path, data);
      expect(sent).toStrictEqual(expected);
    }
  });

  it("opens every object of a schema to keys it does not name", () => {
    expect(
      keepingUnknownKeys({
        type: "object",
        additionalProperties: false,
        properties: { a: { type: ["object", "null"], properties: {} }, b: { type: "object", additionalProperties: { type: "string" } } },
      }),
    ).toEqual({
      type: "object",
      additionalProperties: true,
      properties: {
        a: { type: ["object", "null"], properties: {}, additionalProperties: true },
        b: { type: "object", additionalProperties: { type: "string" } },
      },
    });
  });
});
