// At most PUSH_SUBSCRIPTIONS_PER_USER active push subscriptions per user (docs/api.md#push-subscriptions):
// over it, the least recently updated of the user's others is deactivated, so one event never fans out to
// more endpoints than that. The race of two subscribes at once is test/postgres/push-subscription-cap-race.test.ts.
import { describe, expect, it } from "vitest";
import { type TestApp, type TestUser, useTestApp } from "../helpers/app.js";
import { subscribeAt } from "../helpers/push.js";

const endpoint = (n: number) => `https://push.example.test/send/${n}-${Math.random().toString(36).slice(2)}`;
const activeEndpoints = async (app: TestApp, user: TestUser) =>
  (await app.caller(user).notifications.listSubscriptions()).subscriptions.map((s) => s.endpoint);

describe("push subscriptions per user, default cap", () => {
  const t = useTestApp({ push: { allowHttpEndpoints: false } });

  it("keeps 20 active: the 21st deactivates the first", async () => {
    const user = await t().signUp();
    const endpoints = Array.from({ length: 21 }, (_, i) => endpoint(i));
    for (const e of endpoints) await subscribeAt(t(), user, e);
    expect(await activeEndpoints(t(), user)).toEqual(endpoints.slice(1));
  });
});

describe("push subscriptions per user, PUSH_SUBSCRIPTIONS_PER_USER=3", () => {
  const t = useTestApp({ limits: { pushSubscriptionsPerUser: 3 } });

  it("deactivates the least recently updated, never the one just registered, and no one else's", async () => {
    const user = await t().signUp();
    const other = await t().signUp();
    const theirs = endpoint(0);
    await subscribeAt(t(), other, theirs);
    const [a, b, c, d] = [endpoint(1), endpoint(2), endpoint(3), endpoint(4)];
    for (const e of [a, b, c]) await subscribeAt(t(), user, e);
    // Registering `a` again makes it the most recently updated: `b` is now the least.
    await subscribeAt(t(), user, a);
    await subscribeAt(t(), user, d);
    expect((await activeEndpoints(t(), user)).sort()).toEqual([a, c, d].sort());
    // A deactivated endpoint that comes back is active again, and pushes out the next least recent (`c`).
    const back = await subscribeAt(t(), user, b);
    expect((await activeEndpoints(t(), user)).sort()).toEqual([a, b, d].sort());
    expect(back.id).toBeTruthy();
    expect(await activeEndpoints(t(), other)).toEqual([theirs]);
  });

  it("a browser that moves to another user counts against its new owner", async () => {
    const [first, second] = [await t().signUp(), await t().signUp()];
    const shared = endpoint(9);
    for (const e of [endpoint(1), endpoint(2), endpoint(3)]) await subscribeAt(t(), second, e);
    await subscribeAt(t(), first, shared);
    await subscribeAt(t(), second, shared);
    expect(await activeEndpoints(t(), first)).toEqual([]);
    const active = await activeEndpoints(t(), second);
    expect(active).toHaveLength(3);
    expect(active).toContain(shared);
  });
});
