// Inside a keyed request's transaction nothing may wait on the network or take a second pool connection
// (server/http/keyed-scope.ts, issue Y finding 3): the guard refuses there, and only there.
import { describe, expect, it } from "vitest";
import { inKeyedTransaction, refuseInKeyedTransaction } from "../../server/http/keyed-scope.js";

describe("refuseInKeyedTransaction", () => {
  it("throws inside a keyed transaction, across awaits, and nowhere else", async () => {
    expect(() => refuseInKeyedTransaction("Sending pushes")).not.toThrow();
    await expect(
      inKeyedTransaction(async () => {
        await new Promise((resolve) => setImmediate(resolve));
        refuseInKeyedTransaction("Sending pushes");
      }),
    ).rejects.toThrow(/Sending pushes inside a keyed request's transaction/);
    expect(() => refuseInKeyedTransaction("Sending pushes")).not.toThrow();
  });
});
