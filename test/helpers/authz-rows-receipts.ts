// The authorization matrix's row for POST /api/notifications/receipts (docs/api.md#delivery-receipts), which
// no session or key opens: every kind of caller gets the same answer, decided by the receipt alone. A session
// cookie from an untrusted origin is still refused before anything (the rule for every write).
import type { TestUser } from "./app.js";

export type ReceiptCaller = "anonymous" | "forged" | "user" | "admin" | "apiKey";

export const RECEIPT_CALLERS: readonly ReceiptCaller[] = ["anonymous", "forged", "user", "admin", "apiKey"];

/** The headers each kind of caller brings. */
export function receiptCallerHeaders(
  as: ReceiptCaller,
  people: { user: TestUser; admin: TestUser; apiKey: string },
): Record<string, string> {
  switch (as) {
    case "anonymous":
      return {};
    case "forged":
      return { authorization: "Bearer forged-token-that-no-session-has" };
    case "user":
      return people.user.headers;
    case "admin":
      return people.admin.headers;
    case "apiKey":
      return { "x-api-key": people.apiKey };
  }
}

/** The row: whoever calls, a live receipt is 204 and anything else 404; never 401 or 403. */
export const receiptRow = { live: 204, dead: 404 } as const;
