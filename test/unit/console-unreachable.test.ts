// When the console says the service cannot be reached (console/src/unreachable.ts): fetch() found no
// answer, or a gateway answered for an absent service; never for an error the service itself answered.
import { TRPCClientError } from "@trpc/client";
import { describe, expect, test } from "vitest";
import { isUnreachable } from "../../console/src/unreachable.js";

describe("isUnreachable", () => {
  test("no answer: fetch's TypeError, bare or wrapped by tRPC", () => {
    expect(isUnreachable(new TypeError("Failed to fetch"))).toBe(true);
    expect(isUnreachable(TRPCClientError.from(new TypeError("Failed to fetch")))).toBe(true);
  });
  test("a gateway's 502, 503 or 504 without the service's error body", () => {
    for (const status of [502, 503, 504]) {
      expect(isUnreachable(TRPCClientError.from(new Error("Unexpected token <"), { meta: { response: { status } } }))).toBe(true);
    }
  });
  test("not an answer of the service, nor any other error", () => {
    const refused = TRPCClientError.from({ error: { message: "Not allowed", code: -32003, data: { httpStatus: 403 } } });
    expect(isUnreachable(refused)).toBe(false);
    const busy = TRPCClientError.from(
      { error: { message: "Try later", code: -32603, data: { httpStatus: 503 } } },
      { meta: { response: { status: 503 } } },
    );
    expect(isUnreachable(busy)).toBe(false);
    expect(isUnreachable(new Error("Failed to fetch"))).toBe(false);
    expect(isUnreachable(TRPCClientError.from(new Error("boom"), { meta: { response: { status: 500 } } }))).toBe(false);
  });
});
