// The Account and Preferences views' rules (console/src/selfHelp.ts).
import { describe, expect, it } from "vitest";
import { authErrorInWords, categoryLabel, passwordProblems, preferencesPatch } from "../../console/src/selfHelp.js";

describe("passwordProblems", () => {
  const good = { current: "the-old-password", next: "a-new-long-password", confirm: "a-new-long-password" };
  it("accepts a good change", () => expect(passwordProblems(good)).toEqual({}));
  it("needs the current password, a long enough new one, and the same twice", () => {
    expect(passwordProblems({ current: "", next: "short", confirm: "" })).toEqual({
      current: "Enter your current password.",
      next: "At least 12 characters.",
    });
    expect(passwordProblems({ ...good, confirm: "a-new-long-passwore" })).toEqual({ confirm: "Does not match the new password." });
    expect(passwordProblems({ ...good, next: "x".repeat(129), confirm: "x".repeat(129) }).next).toBe("At most 128 characters.");
  });
  it("refuses a new password equal to the current one", () => {
    expect(passwordProblems({ current: good.next, next: good.next, confirm: good.next }).next).toMatch(/same as the current/);
  });
});

describe("authErrorInWords", () => {
  it("says a wrong current password in words", () => {
    expect(authErrorInWords({ message: "Invalid password", status: 400, code: "INVALID_PASSWORD" })).toBe(
      "The current password is not right. Your password was not changed.",
    );
  });
  it("a lost session asks to sign in again; anything else keeps the service's message", () => {
    expect(authErrorInWords({ message: "Unauthorized", status: 401 })).toMatch(/sign in again/);
    expect(authErrorInWords({ message: "Too many requests", status: 429 })).toBe("Too many requests");
  });
});

describe("preferencesPatch", () => {
  const saved = { messages: { inApp: true, push: true }, billing: { inApp: true, push: false } };
  it("is empty when nothing changed", () => expect(preferencesPatch(saved, structuredClone(saved))).toEqual({}));
  it("names only the channels that changed", () => {
    expect(preferencesPatch(saved, { messages: { inApp: true, push: false }, billing: { inApp: false, push: true } })).toEqual({
      messages: { push: false },
      billing: { inApp: false, push: true },
    });
  });
});

it("categoryLabel capitalises", () => expect(categoryLabel("messages")).toBe("Messages"));
