// Why an event queued no push (server/producers/no-push.ts): the user's choice, then the service's keys,
// then the user's subscriptions; null exactly when deliveries are queued.
import { describe, expect, it } from "vitest";
import { noPushReason } from "../../server/producers/no-push.js";

describe("noPushReason", () => {
  it.each([
    [false, true, 2, "push_off"],
    [false, false, 0, "push_off"],
    [true, false, 2, "push_not_configured"],
    [true, false, 0, "push_not_configured"],
    [true, true, 0, "no_subscription"],
    [true, true, 1, null],
    [true, true, 3, null],
  ] as const)("push chosen %s, configured %s, %i subscriptions: %s", (chosen, enabled, subscriptions, reason) => {
    expect(noPushReason(chosen, enabled, subscriptions)).toBe(reason);
  });
});
