// The emergency rollback's reason (server/restriction/emergency-reason.ts): at least 10 visible
// characters, letters, digits or punctuation; nothing a reader cannot see counts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emergencyReasonProblem, visibleLength } from "../../server/restriction/emergency-reason.js";
import { MIN_BYPASS_REASON_LENGTH } from "../../server/restriction/limits.js";

/** Characters that are no part of a reason: spaces, format and control characters, a combining mark alone. */
const INVISIBLE = [
  " ",
  "\t",
  "\n",
  "\r",
  "\u00a0",
  "\u2003",
  "\u3000",
  "\u2028", // spaces and separators
  "\u200b",
  "\u200c",
  "\u200d",
  "\u2060",
  "\ufeff",
  "\u00ad",
  "\u202e",
  "\u2066",
  "\u{e0041}", // format
  "\u0001",
  "\u007f",
  "\u0085", // control
  "\u0301", // a combining mark
];
/** Characters that count: letters and digits of several scripts, punctuation. */
const VISIBLE = ["a", "Z", "é", "ß", "Ж", "ع", "障", "한", "0", "٣", "Ⅻ", ".", "!", "«", "—", "¿", "、"];

const invisible = fc.constantFrom(...INVISIBLE);
const visible = fc.constantFrom(...VISIBLE);
/** `n` visible characters with any invisible ones between and around them. */
const reasonWith = (n: number) =>
  fc
    .tuple(
      fc.array(visible, { minLength: n, maxLength: n }),
      fc.array(fc.array(invisible, { maxLength: 4 }), { minLength: n + 1, maxLength: n + 1 }),
    )
    .map(([shown, gaps]) => gaps.map((gap, i) => gap.join("") + (shown[i] ?? "")).join(""));

describe("emergencyReasonProblem: a written reason for a rollback without approval", () => {
  it("refuses ten zero-width spaces, and nothing at all", () => {
    expect(emergencyReasonProblem("\u200b".repeat(10))).toMatch(/at least 10 visible characters/);
    expect(emergencyReasonProblem(null)).not.toBeNull();
    expect(emergencyReasonProblem(undefined)).not.toBeNull();
    expect(emergencyReasonProblem("")).not.toBeNull();
  });

  it("accepts exactly ten visible characters, and counts a letter with its combining accent once", () => {
    expect(emergencyReasonProblem("complaints")).toBeNull();
    expect(emergencyReasonProblem("complaint")).not.toBeNull();
    expect(visibleLength("e\u0301")).toBe(1);
    expect(visibleLength("障害が発生しました。")).toBe(10);
  });

  it("does not count symbols standing alone", () => {
    expect(emergencyReasonProblem("++++++++++")).not.toBeNull();
    expect(emergencyReasonProblem("🔥".repeat(10))).not.toBeNull();
  });

  it("bad input: fewer than ten visible characters among any invisible ones is refused", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MIN_BYPASS_REASON_LENGTH - 1 }).chain(reasonWith),
        (reason) => emergencyReasonProblem(reason) !== null,
      ),
    );
  });

  it("ten or more visible characters are accepted however they are spaced", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_BYPASS_REASON_LENGTH, max: 40 }).chain(reasonWith),
        (reason) => emergencyReasonProblem(reason) === null,
      ),
    );
  });
});
