import { describe, expect, it } from "vitest";
import { CATEGORIES, categoryFilter, categoryOf, isCategory } from "../../db/categories.js";

describe("categoryOf: the part of eventType before its first '.'", () => {
  it.each([
    ["message.received", "messages"],
    ["message", "messages"],
    ["lead.created", "leads"],
    ["review.posted.late", "reviews"],
    ["payment.failed", "billing"],
    ["invoice.issued", "billing"],
    ["billing.updated", "billing"],
    ["account.locked", "account"],
    ["profile.updated", "account"],
    ["security.login", "account"],
  ])("%s → %s", (eventType, category) => {
    expect(categoryOf(eventType)).toBe(category);
  });

  it.each([
    ["weekly_digest"],
    [""],
    [".message"],
    ["messages.received"],
    ["Message.received"],
    ["constructor"],
    ["__proto__.x"],
    ["toString"],
  ])("%j → system", (eventType) => {
    expect(categoryOf(eventType)).toBe("system");
  });
});

describe("categoryFilter: valid categories only", () => {
  it.each(CATEGORIES.map((c) => [c]))("%s is kept", (category) => {
    expect(isCategory(category)).toBe(true);
    expect(categoryFilter(category)).toBe(category);
  });

  it.each([[undefined], [null], [""], ["message"], ["MESSAGES"], ["nope"], [3], [["messages"]]])("%j means no filter", (value) => {
    expect(categoryFilter(value)).toBeNull();
  });
});
