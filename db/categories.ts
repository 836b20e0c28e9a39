// Pure rules of notification categories (docs/api.md#categories): no I/O, unit-tested on their own.

export const CATEGORIES = ["messages", "leads", "reviews", "billing", "account", "system"] as const;
export type Category = (typeof CATEGORIES)[number];

/** The part of an eventType before its first `.` decides the category; anything unlisted is system. */
const CATEGORY_BY_PREFIX: Readonly<Record<string, Category>> = {
  message: "messages",
  lead: "leads",
  review: "reviews",
  payment: "billing",
  invoice: "billing",
  billing: "billing",
  account: "account",
  profile: "account",
  security: "account",
};

export function categoryOf(eventType: string): Category {
  const prefix = eventType.split(".", 1)[0] ?? "";
  // Own properties only: "constructor" or "__proto__" must not find Object.prototype.
  return Object.hasOwn(CATEGORY_BY_PREFIX, prefix) ? CATEGORY_BY_PREFIX[prefix]! : "system";
}

export function isCategory(value: unknown): value is Category {
  return typeof value === "string" && (CATEGORIES as readonly string[]).includes(value);
}

/** A category filter: valid categories only, anything else (missing, unknown) means "no filter". */
export const categoryFilter = (value: unknown): Category | null => (isCategory(value) ? value : null);
