// A push queue stops promptly whatever it is doing: stop() arriving while a round reads the database must
// not leave the loop to sleep out its poll first (with a 60 s poll, an app's close waited a minute). The
// round is held in place by a second session's lock on push_deliveries, so stop() lands mid-round.

import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeliveryQueue } from "../../server/push/delivery-queue.js";
import { createPushService } from "../../server/push/sender.js";
import { COUNT_WAITING_HERE, openTestDb, otherSession, type TestDb } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

describe("the push queue's stop (PostgreSQL)", () => {
  let db: TestDb;
  let locker: postgres.Sql;
  beforeAll(async () => {
    db = await openTestDb();
    locker = await otherSession(db);
  });
  afterAll(async () => {
    await locker?.end();
    await db?.close();
  });

  const waitingOnLocks = async () => Number((await locker.unsafe(COUNT_WAITING_HERE))[0]!.n);

  it("resolves once the round in hand ends, not after the next poll", async () => {
    await locker`begin`;
    await locker`lock table push_deliveries in access exclusive mode`;
    const queue = startDeliveryQueue({
      db: db.db,
      push: createPushService({ vapid: null }),
      retryBaseMs: 1000,
      pollMs: 60_000,
      onError: () => {},
    });
    // Its first round waits on the lock; stop() comes now, while there is no sleep to cut short.
    await waitFor(waitingOnLocks, (n) => n === 1, { withinMs: 5000, what: "the queue's round waiting on the lock" });
    const stopped = queue.stop().then(() => "stopped");
    await locker`commit`;
    const first = await Promise.race([stopped, new Promise((resolve) => setTimeout(() => resolve("still sleeping"), 10_000))]);
    expect(first).toBe("stopped");
  });
});
