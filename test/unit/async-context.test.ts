// AsyncLocalStorages are switched off while no counted use runs (server/http/async-context.ts, issue AE):
// on Node 20 every enabled one makes every promise of the process pay a hook. Switching one off must never
// take its value from a use still running, whichever order overlapping uses end in, which fast-check's
// scheduler picks.
import { AsyncLocalStorage } from "node:async_hooks";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asyncContextUses, inAsyncContext, quietWhenIdle } from "../../server/http/async-context.js";
import { inKeyedTransaction, refuseInKeyedTransaction } from "../../server/http/keyed-scope.js";
import { storageEnabled } from "../helpers/async-context.js";

const first = new AsyncLocalStorage<string>();
const second = new AsyncLocalStorage<string>();
quietWhenIdle(first, second);

describe("inAsyncContext", () => {
  it("switches the storages off once the last use ends, and a later run switches them on", async () => {
    await inAsyncContext(() => first.run("a", async () => expect(first.getStore()).toBe("a")));
    expect(storageEnabled(first)).toBe(false);
    expect(asyncContextUses()).toBe(0);
    await inAsyncContext(() =>
      first.run("b", async () => {
        expect(storageEnabled(first)).toBe(true);
        await new Promise((resolve) => setImmediate(resolve));
        expect(first.getStore()).toBe("b");
      }),
    );
    expect(storageEnabled(first)).toBe(false);
  });

  it("also when the use fails", async () => {
    await expect(inAsyncContext(() => second.run("x", async () => Promise.reject(new Error("boom"))))).rejects.toThrow("boom");
    expect(storageEnabled(second)).toBe(false);
    expect(asyncContextUses()).toBe(0);
  });

  it("keeps each running use's value through every await, whichever use ends first", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.array(fc.record({ storage: fc.constantFrom(first, second), steps: fc.integer({ min: 0, max: 4 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (s, uses) => {
          const lost: string[] = [];
          const runs = uses.map(({ storage, steps }, i) =>
            // Each use starts when the scheduler says, then waits on the scheduler between its checks.
            s.schedule(Promise.resolve(), `start ${i}`).then(() =>
              inAsyncContext(() =>
                storage.run(`use ${i}`, async () => {
                  for (let step = 0; step <= steps; step++) {
                    if (storage.getStore() !== `use ${i}`) lost.push(`use ${i} at step ${step}: ${String(storage.getStore())}`);
                    await s.schedule(Promise.resolve(), `use ${i} step ${step}`);
                  }
                  if (storage.getStore() !== `use ${i}`) lost.push(`use ${i} at its end`);
                }),
              ),
            ),
          );
          await s.waitFor(Promise.all(runs));
          expect(lost).toEqual([]);
          expect(asyncContextUses()).toBe(0);
          expect([storageEnabled(first), storageEnabled(second)]).toEqual([false, false]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("a keyed request's transaction", () => {
  it("is seen across awaits while it runs, and its storage is off after it", async () => {
    await expect(
      inKeyedTransaction(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        refuseInKeyedTransaction("Sending pushes");
      }),
    ).rejects.toThrow(/inside a keyed request's transaction/);
    expect(asyncContextUses()).toBe(0);
    expect(() => refuseInKeyedTransaction("Sending pushes")).not.toThrow();
  });
});
