// A user's notification preferences (docs/api.md#preferences): per category, in-app and push, all on until
// changed; any part may change, the answer is the whole; each user's own.
import { describe, expect, it } from "vitest";
import { CATEGORIES } from "../../db/categories.js";
import { useTestApp } from "../helpers/app.js";
import { restClient } from "../helpers/rest.js";

type Preferences = Record<string, { inApp: boolean; push: boolean }>;
const ALL_ON = Object.fromEntries(CATEGORIES.map((c) => [c, { inApp: true, push: true }]));
const URL = "/api/notifications/preferences";

describe("notification preferences", () => {
  const t = useTestApp();
  const rest = restClient(t);

  it("are all on until changed; a change names any part and keeps the rest; each user has their own", async () => {
    const user = await t().signUp();
    const other = await t().signUp();
    expect(await rest.ok<{ preferences: Preferences }>(user, { method: "GET", url: URL })).toEqual({ preferences: ALL_ON });

    const changed = await rest.ok<{ preferences: Preferences }>(user, { method: "PATCH", url: URL, payload: { billing: { push: false } } });
    expect(changed.preferences).toEqual({ ...ALL_ON, billing: { inApp: true, push: false } });
    const again = await rest.ok<{ preferences: Preferences }>(user, {
      method: "PATCH",
      url: URL,
      payload: { billing: { inApp: false }, leads: {} },
    });
    expect(again.preferences).toEqual({ ...ALL_ON, billing: { inApp: false, push: false } });
    expect(await rest.ok(user, { method: "PATCH", url: URL, payload: {} })).toEqual(again);
    expect(await rest.ok(other, { method: "GET", url: URL })).toEqual({ preferences: ALL_ON });

    const overTrpc = await t()
      .caller(user)
      .notifications.updatePreferences({ billing: { inApp: true } });
    expect(overTrpc.preferences.billing).toEqual({ inApp: true, push: false });
    expect((await t().caller(user).notifications.getPreferences()).preferences).toEqual(overTrpc.preferences);
  });

  it("refuses unknown categories, unknown channels and non-booleans, naming the field, and changes nothing", async () => {
    const user = await t().signUp();
    for (const [payload, field] of [
      [{ email: { push: false } }, "(body)"],
      [{ billing: { sms: false } }, "billing"],
      [{ billing: { push: "no" } }, "billing.push"],
      [{ billing: false }, "billing"],
    ] as const) {
      const error = await rest.fails(user, { method: "PATCH", url: URL, payload }, 400, "VALIDATION_ERROR");
      expect(error.details?.map((d) => d.field)).toEqual([field]);
    }
    expect(await rest.ok(user, { method: "GET", url: URL })).toEqual({ preferences: ALL_ON });
  });
});
