// Two subscribes of one user at once never leave more than PUSH_SUBSCRIPTIONS_PER_USER active
// (docs/api.md#push-subscriptions). Forced: a second session holds the user's oldest subscription row, so
// both subscribes are in flight together (each upserted its own row, or waiting for the other) before
// either can deactivate anything.
import { and, eq } from "drizzle-orm";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pushSubscriptions } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";
import { COUNT_WAITING_HERE, otherSession } from "../helpers/db.js";
import { subscribeAt } from "../helpers/push.js";
import { waitFor } from "../helpers/wait.js";

const endpoint = (n: number) => `https://push.example.test/send/${n}-${Math.random().toString(36).slice(2)}`;

describe("the push subscription cap under concurrent subscribes", () => {
  const t = useTestApp({ limits: { pushSubscriptionsPerUser: 3 } });
  let locker: postgres.Sql;
  beforeAll(async () => {
    locker = await otherSession(t().db, 2);
  });
  afterAll(async () => {
    await locker?.end();
  });

  /** Backends of this database (other than the locker) waiting on a lock. */
  const waiting = async () => Number(((await locker.unsafe(COUNT_WAITING_HERE)) as unknown as { n: number }[])[0]!.n);

  it("two new endpoints at once, at the cap: still 3 active", async () => {
    const user = await t().signUp();
    const oldest = await subscribeAt(t(), user, endpoint(1));
    await subscribeAt(t(), user, endpoint(2));
    await subscribeAt(t(), user, endpoint(3));
    const active = async () =>
      (
        await t()
          .db.db.select()
          .from(pushSubscriptions)
          .where(and(eq(pushSubscriptions.userId, user.id), eq(pushSubscriptions.isActive, true)))
      ).length;

    const held = await locker.reserve();
    await held`begin`;
    await held`select 1 from push_subscriptions where id = ${oldest.id} for update`;
    const both = Promise.all([subscribeAt(t(), user, endpoint(4)), subscribeAt(t(), user, endpoint(5))]);
    // Both are in flight: one waits on the held row, the other on it or on the first.
    await waitFor(waiting, (n) => n === 2, { withinMs: 10_000, what: "both subscribes waiting" });
    await held`commit`;
    held.release();
    await both;
    expect(await active()).toBe(3);
  });
});
