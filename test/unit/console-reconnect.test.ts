// How long the console waits before it opens a live stream again (console/src/useStayConnected.ts): twice
// as long each attempt from 1 s, never more than 30 s, spread ±20 % so consoles do not all come at once.
import { describe, expect, test } from "vitest";
import { reconnectDelay } from "../../console/src/useStayConnected.js";

describe("reconnectDelay", () => {
  const middle = () => 0.5;
  test("doubles from one second and stops growing at thirty", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map((n) => reconnectDelay(n, middle))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });
  test("stays within 20 % of the step either way", () => {
    expect(reconnectDelay(0, () => 0)).toBe(800);
    expect(reconnectDelay(0, () => 0.999_999)).toBe(1_200);
    expect(reconnectDelay(10, () => 0.999_999)).toBe(36_000);
  });
});
