// A tRPC input's superjson meta is checked before superjson walks it (server/trpc/superjson-meta.ts, issue X):
// junk meta is a 400 BAD_REQUEST naming what is wrong, never another error, however big (a 1 MB string
// included); what superjson itself writes for the service's inputs passes unchanged.
import { TRPCError } from "@trpc/server";
import fc from "fast-check";
import superjson from "superjson";
import { describe, expect, it } from "vitest";
import { deserializeInput } from "../../server/trpc/superjson-meta.js";

/** What deserializeInput did with a payload: its value, or the code and message it refused it with. */
function outcome(payload: unknown): { ok: true; value: unknown } | { ok: false; code: string; message: string } {
  try {
    return { ok: true, value: deserializeInput(payload) };
  } catch (err) {
    // Anything but tRPC's 400 fails the property here.
    expect(err).toBeInstanceOf(TRPCError);
    return { ok: false, code: (err as TRPCError).code, message: (err as TRPCError).message };
  }
}

const path = fc.oneof(
  fc.constantFrom("a", "a.b", "0", "items.3.at", "__proto__", "a.constructor", "a\\.b", "a\\x", "", "."),
  fc.string({ maxLength: 30 }),
  fc.nat({ max: 500 }).map((n) => `${"a.".repeat(n)}a`),
);
const annotation = fc.oneof(
  fc.constantFrom("Date", "undefined", "bigint", "map", "set", "number", "URL", "regexp", "Error", "class", "custom", "no-such-type"),
  fc.tuple(fc.constantFrom("class", "symbol", "custom", "typed-array"), fc.string({ maxLength: 10 })),
  fc.anything(),
);
const valuesTree = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: "small" },
    fc.tuple(annotation),
    fc.tuple(annotation, tie("record")),
    tie("record"),
    annotation,
    fc.anything(),
  ),
  record: fc.dictionary(path, tie("tree"), { maxKeys: 5 }),
}));
/** Meta as an attacker might write it: right field names with junk in them, junk fields, huge strings. */
const junkMeta = fc.oneof(
  fc.record(
    { values: valuesTree.tree, referentialEqualities: fc.anything(), v: fc.constantFrom(1, 0, "1", undefined) },
    { requiredKeys: [] },
  ),
  fc.record({ referentialEqualities: fc.oneof(fc.array(fc.array(path)), fc.dictionary(path, fc.array(path)), fc.anything()) }),
  fc.anything(),
  fc.constantFrom("x".repeat(1_000_000), { values: "x".repeat(1_000_000) }, { values: { ["x".repeat(1_000_000)]: ["Date"] } }),
);
const json = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constant({ a: { b: [1, 2, 3] }, items: [{ at: "2026-01-01T00:00:00.000Z" }] }));

const REFUSED_KEYS = ["__proto__", "constructor", "prototype"];
/** Whether any object in a JSON value has a key superjson refuses to walk. */
const holdsRefusedKey = (v: unknown): boolean =>
  typeof v === "object" && v !== null && Object.entries(v).some(([k, inner]) => REFUSED_KEYS.includes(k) || holdsRefusedKey(inner));

describe("superjson meta", () => {
  it("refuses junk meta only with 400 BAD_REQUEST, naming it as malformed superjson meta", () => {
    fc.assert(
      fc.property(json, junkMeta, (value, meta) => {
        const result = outcome({ json: value, meta });
        if (!result.ok) expect(result.code).toBe("BAD_REQUEST");
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses the shapes that hurt, with a message that says why", () => {
    const refusal = (meta: unknown) => outcome({ json: { a: 1 }, meta });
    expect(refusal({ values: "x".repeat(1_000_000) })).toEqual({
      ok: false,
      code: "BAD_REQUEST",
      message: "Malformed superjson meta: values must be an object of paths or [type]",
    });
    expect(refusal({ values: { [`${"a.".repeat(400_000)}a`]: ["Date"] } })).toMatchObject({
      message: expect.stringMatching(/longer than 1000/),
    });
    expect(refusal({ values: { [`${"a.".repeat(200)}a`]: ["Date"] } })).toMatchObject({
      message: expect.stringMatching(/deeper than 128/),
    });
    const many = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, ["Date"]]));
    expect(refusal({ values: many })).toMatchObject({ message: expect.stringMatching(/more than 1000 entries/) });
    expect(refusal({ values: { a: ["class", "Foo"] } })).toMatchObject({ message: "Malformed superjson meta: unknown value annotation" });
    expect(refusal({ values: { "a.__proto__": ["Date"] } })).toMatchObject({ message: expect.stringMatching(/may not hold "__proto__"/) });
    expect(refusal({ values: {}, extra: 1 })).toMatchObject({ message: expect.stringMatching(/unknown field "extra"/) });
    expect(refusal({ referentialEqualities: { a: "b" } })).toMatchObject({ message: expect.stringMatching(/must list paths/) });
    // Well-formed, but the value cannot take the annotation (found by the property above: a TypeError before).
    expect(refusal({ values: ["map", {}] })).toEqual({
      ok: false,
      code: "BAD_REQUEST",
      message: "Malformed superjson meta: a value does not fit its annotation",
    });
    expect(outcome(null)).toMatchObject({ ok: false, code: "BAD_REQUEST" });
  });

  it("reads what superjson writes for plain values with Dates, Maps, Sets and undefined, unchanged", () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: "small" },
        // superjson.serialize itself throws on a __proto__ key, so no client sends one this way (CI found
        // `[{"__proto__":0}]` from jsonValue, seed 1317464749, path 3001:3:85:87): the keys below skip it too.
        fc.jsonValue({ maxDepth: 1 }).filter((v) => !holdsRefusedKey(v)),
        fc.date({ noInvalidDate: true }),
        fc.constant(undefined),
        fc.array(tie("v"), { maxLength: 4 }),
        fc.dictionary(
          fc.string({ maxLength: 8 }).filter((k) => !REFUSED_KEYS.includes(k)),
          tie("v"),
          { maxKeys: 4 },
        ),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(deserializeInput(superjson.serialize(v))).toEqual(v);
      }),
      { numRuns: 500 },
    );
    expect(() => superjson.serialize([{ ["__proto__"]: 0 }])).toThrow(/prototype pollution/);
    const shared = { x: 1 };
    const withMapsAndSharing = { m: new Map([["a", new Set([1])]]), first: shared, second: shared, when: new Date(0) };
    expect(deserializeInput(superjson.serialize(withMapsAndSharing))).toEqual(withMapsAndSharing);
  });

  it("reads a `__proto__` key of an input as a key, never as the value's prototype", () => {
    // superjson's deep copy (left out since issue AE) made it the copy's prototype, whose fields a parser then read.
    const input = deserializeInput(JSON.parse('{"json": {"__proto__": {"proId": "p1"}}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.hasOwn(input, "__proto__")).toBe(true);
    expect(input.proId).toBeUndefined();
  });
});
