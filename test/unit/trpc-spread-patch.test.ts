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

// The same patch builds each middleware's options in one object instead of two generic copies a middleware
// (the largest share of a from-memory read's own CPU; issue AE). Each middleware, and the procedure, must see
// what tRPC's own code gives it: the caller's options spread, then `meta`, `input`, `next`; next()'s ctx
// merged over the caller's, its input and getRawInput in place of theirs.
describe("tRPC's middleware options, patched", () => {
  const chainFile = readdirSync(dist).find((name) => /^initTRPC-.*\.mjs$/.test(name));

  it("is the patched one", () => {
    expect(chainFile).toBeDefined();
    expect(readFileSync(join(dist, chainFile!), "utf8")).toContain("function middlewareOptions(");
  });

  it("gives each middleware what a spread of the caller's options gives", async () => {
    const { initTRPC } = await import("@trpc/server");
    const t = initTRPC.context<Record<string, unknown>>().meta<{ label: string }>().create();
    const seen: Record<string, unknown>[] = [];
    const raw = async () => "raw";
    // What each middleware gives its next(), in order: nothing, a context and an input, a getRawInput, nothing.
    const nextArgs = [undefined, { ctx: { added: 1 }, input: "replaced" }, { getRawInput: raw }, undefined] as const;
    const passing = (i: number) =>
      t.middleware((opts) => {
        seen.push(opts as never);
        const arg = nextArgs[i];
        if (arg === undefined) return opts.next();
        return "getRawInput" in arg ? opts.next(arg) : opts.next(arg);
      });
    const procedure = t.procedure
      .meta({ label: "m" })
      .use(passing(0))
      .use(passing(1))
      .use(passing(2))
      .use(passing(3))
      .query((opts) => void seen.push(opts as never));

    // What tRPC's published code gives at each step (callRecursive, before the patch).
    const reference = (caller: Record<string, unknown>) => {
      const expected: Record<string, unknown>[] = [];
      let options = caller;
      for (const arg of nextArgs) {
        expected.push({ ...options, meta: { label: "m" }, input: options.input });
        const next: { ctx?: object; input?: unknown; getRawInput?: unknown } = arg ?? {};
        options = {
          ...options,
          ctx: next.ctx ? { ...(options.ctx as object), ...next.ctx } : options.ctx,
          input: "input" in next ? next.input : options.input,
          getRawInput: next.getRawInput ?? options.getRawInput,
        };
      }
      expected.push({ ...options, meta: { label: "m" }, input: options.input });
      return expected;
    };
    const comparable = ({ next: _next, ...rest }: Record<string, unknown>) => rest;
    const reserved = ["ctx", "type", "path", "getRawInput"];
    const extraKey = fc.oneof(
      fc.string(),
      fc.constantFrom("__proto__", "toString", "constructor", "meta", "next", "input", "signal", "batchIndex"),
    );
    const callerRaw = async () => undefined;

    await fc.assert(
      fc.asyncProperty(fc.dictionary(extraKey, fc.jsonValue(), { maxKeys: 6 }), async (extras) => {
        for (const key of reserved) delete (extras as Record<string, unknown>)[key];
        const caller = { ...extras, ctx: { base: 1 }, type: "query", path: "p", getRawInput: callerRaw };
        seen.length = 0;
        await procedure(caller as never);
        const expected = reference(caller);
        expect(seen).toHaveLength(expected.length);
        seen.forEach((options, i) => {
          expect(comparable(options)).toEqual(comparable(expected[i]!));
          expect(Object.hasOwn(options, "__proto__")).toBe(Object.hasOwn(expected[i]!, "__proto__"));
          expect(Object.getPrototypeOf(options)).toBe(Object.prototype);
          expect(typeof options.next).toBe("function");
        });
      }),
      { numRuns: 200 },
    );
  });
});
