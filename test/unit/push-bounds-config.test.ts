// The push and retention settings of CONTRACT part four: PUSH_LEASE_SECONDS, PUSH_SUBSCRIPTIONS_PER_USER and
// RETENTION_DAYS, their defaults, and one line naming each bad value.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { configErrorOf } from "../helpers/config.js";

const errorOf = configErrorOf;

describe("push lease, subscriptions per user and retention settings", () => {
  it("default to a 30 s lease, 20 subscriptions per user and 30 days kept", () => {
    expect(loadConfig({})).toMatchObject({ pushLeaseSeconds: 30, pushSubscriptionsPerUser: 20, retentionDays: 30 });
  });

  it("read whole numbers within their bounds", () => {
    expect(loadConfig({ PUSH_LEASE_SECONDS: "2", PUSH_SUBSCRIPTIONS_PER_USER: "1", RETENTION_DAYS: "365" })).toMatchObject({
      pushLeaseSeconds: 2,
      pushSubscriptionsPerUser: 1,
      retentionDays: 365,
    });
  });

  it("refuse zero, fractions, words and values past their bounds, one line per variable", () => {
    for (const [name, values] of [
      ["PUSH_LEASE_SECONDS", ["0", "1.5", "soon", "3601"]],
      ["PUSH_SUBSCRIPTIONS_PER_USER", ["0", "-1", "2.5", "1001"]],
      ["RETENTION_DAYS", ["0", "thirty", "36501"]],
    ] as const) {
      for (const value of values) {
        const message = errorOf({ [name]: value });
        expect({ value, lines: message.split("\n").length, named: message.startsWith(`${name}:`) }).toEqual({
          value,
          lines: 1,
          named: true,
        });
      }
    }
  });
});
