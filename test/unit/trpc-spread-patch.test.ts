// tRPC's object spread helper, as patches/@trpc+server+11.25.2.patch leaves it (docs/machinery.md): every
// middleware of every procedure call copies its options and context with it, so the patch makes it an
// Object.assign. It must copy exactly what an object spread copies: own enumerable keys and symbols, a
// getter's value, an own "__proto__" key as a key (never as the object's prototype), later sources winning.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const dist = dirname(createRequire(import.meta.url).resolve("@trpc/server"));
const helperFile = readdirSync(dist).find((name) => /^getErrorShape-.*\.mjs$/.test(name));

describe("tRPC's object spread helper, patched", () => {
  it("is the patched one (a tRPC upgrade must carry the patch over, or drop it on purpose)", () => {
    expect(helperFile).toBeDefined();
    expect(readFileSync(join(dist, helperFile!), "utf8")).toContain("Patched (patches/@trpc+server+11.25.2.patch");
  });

  it("copies what an object spread copies", async () => {
    const helper = (await import(join(dist, helperFile!))) as { n: (target: object, ...sources: unknown[]) => object };
    const spread = helper.n;
    const symbol = Symbol("s");
    const hidden = Object.defineProperty({ shown: 1 }, "hidden", { value: 2, enumerable: false });
    const evil = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
    const getter = {
      get value() {
        return 4;
      },
    };
    const copied = spread({}, hidden, { [symbol]: 3 }, evil, null, undefined, getter) as Record<string | symbol, unknown>;
    expect(copied).toEqual({ ...hidden, [symbol]: 3, ...evil, ...getter });
    expect(Object.getOwnPropertyDescriptor(copied, "value")).toEqual({ value: 4, writable: true, enumerable: true, configurable: true });
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.hasOwn(copied, "__proto__")).toBe(true);
    expect(copied.hidden).toBeUndefined();

    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.oneof(fc.string(), fc.constant("__proto__")), fc.jsonValue()), { maxLength: 4 }), (sources) => {
        // What `{ ...sources[0], ...sources[1], … }` makes.
        let copy = {};
        for (const source of sources) copy = { ...copy, ...source };
        expect(spread({}, ...sources)).toStrictEqual(copy);
      }),
    );
  });
});
