// The tRPC answers' serializer (server/trpc/transformer.ts) writes exactly what superjson writes: the same
// text on the wire, read back by the client's superjson as the same value, for JSON with Dates (its own
// walk) and for everything else (handed to superjson).
import fc from "fast-check";
import superjson from "superjson";
import { describe, expect, it } from "vitest";
import { serializeAnswer } from "../../server/trpc/transformer.js";

const wire = (value: unknown) => JSON.stringify(serializeAnswer(value));

/** Keys as answers have them, and the ones superjson escapes or refuses. */
const key = fc.oneof(fc.string(), fc.constantFrom("a.b", "a\\b", "\\.", "0", "12", "__proto__", "constructor", "toJSON"));
const date = fc.date({ noInvalidDate: false });
/** JSON, Dates, and the values superjson annotates (undefined, NaN, -0, bigint, Map, Set). */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.double(),
    fc.integer(),
    date,
    fc.constantFrom(undefined, Number.NaN, -0, Number.POSITIVE_INFINITY, 10n),
  ),
  node: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(key, tie("node"), { maxKeys: 4 }),
    tie("leaf").map((v) => new Map([["k", v]])),
    tie("leaf").map((v) => new Set([v])),
  ),
}));
/** Answers as procedures give them: an object or an array at the root. */
const answer = fc.oneof(fc.dictionary(key, value.node, { maxKeys: 5 }), fc.array(value.node, { maxLength: 5 }));

describe("the tRPC answers' serializer", () => {
  it("writes what superjson writes, and fails where superjson fails", () => {
    fc.assert(
      fc.property(answer, (v) => {
        let expected: string | Error;
        try {
          expected = JSON.stringify(superjson.serialize(v));
        } catch (err) {
          expected = err as Error;
        }
        if (expected instanceof Error) expect(() => wire(v)).toThrow(expected.message);
        else expect(wire(v)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it("notes Dates in superjson's order, an array's own items before deeper ones (seed -1922776146)", () => {
    // Two Dates, not one twice: a Date met twice goes to superjson, which notes it as shared.
    const answer = { "": [[[new Date(0)], new Date(1)]] };
    expect(wire(answer)).toBe(JSON.stringify(superjson.serialize(answer)));
    expect(Object.keys(serializeAnswer(answer).meta?.values ?? {})).toEqual([".0.1", ".0.0.0"]);
    // An object's index keys too: "x.1" before "x.0.y".
    const object = { x: { "0": { y: new Date(2) }, "1": new Date(3) } };
    expect(wire(object)).toBe(JSON.stringify(superjson.serialize(object)));
    expect(Object.keys(serializeAnswer(object).meta?.values ?? {})).toEqual(["x.1", "x.0.y"]);
  });

  it("writes a page of notifications as superjson does, Dates annotated by path", () => {
    const at = new Date("2026-11-27T03:00:00.000Z");
    const page = {
      notifications: [
        { id: "n1", dateCreated: at, readAt: null, data: { url: "/a", "odd.key": new Date(at.getTime() + 1) } },
        { id: "n2", dateCreated: new Date(at.getTime() + 2), readAt: new Date(at.getTime() + 3), data: null },
      ],
      total: 2,
    };
    expect(wire(page)).toBe(JSON.stringify(superjson.serialize(page)));
    expect(superjson.parse(wire(page))).toEqual(page);
    expect(serializeAnswer(page).meta?.values).toEqual({
      "notifications.0.dateCreated": ["Date"],
      "notifications.0.data.odd\\.key": ["Date"],
      "notifications.1.dateCreated": ["Date"],
      "notifications.1.readAt": ["Date"],
    });
  });

  it("hands superjson an object met twice, so the client gets it back shared", () => {
    const shared = { id: "x" };
    const twice = { a: shared, b: shared, at: new Date(0) };
    expect(wire(twice)).toBe(JSON.stringify(superjson.serialize(twice)));
    expect(serializeAnswer(twice).meta).toHaveProperty("referentialEqualities");
  });
});
