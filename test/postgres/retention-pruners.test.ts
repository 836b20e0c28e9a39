import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pruneOnce } from "../../server/producers/retention.js";
import { useTestApp } from "../helpers/app.js";
import { otherSession } from "../helpers/db.js";
import { agedEvent } from "../helpers/push.js";

const NOW = new Date("2031-03-15T12:00:00Z");
const old = () => new Date(NOW.getTime() - 40 * 24 * 60 * 60_000);

describe("two pruners at once", () => {
  const t = useTestApp();
  let other: postgres.Sql;
  beforeAll(async () => {
    other = await otherSession(t().db);
  });
  afterAll(async () => {
    await other?.end();
  });

  it("one skips the rows the other holds, finishes without waiting, and the other's share goes with it", async () => {
    const user = await t().signUp();
    const rows = [];
    for (let i = 0; i < 6; i++) rows.push(await agedEvent(t().db.db, user.id, old()));
    const held = rows.slice(0, 2);
    // The other pruner's batch: these rows locked, their delete not yet committed.
    const [deliveries, events] = await other.begin(async (tx) => {
      await tx`select 1 from push_deliveries where id in ${tx(held.map((r) => r.deliveryId))} for update`;
      await tx`select 1 from notification_events where event_id in ${tx(held.map((r) => r.eventId))} for update`;
      // Meanwhile this pruner runs to the end: it neither waits for the held rows nor fails on them.
      const pruned = await pruneOnce(t().db.db, { days: 30, now: NOW, batchSize: 3 });
      expect(pruned).toEqual({ events: 4, deliveries: 4 });
      const d = await tx`delete from push_deliveries where id in ${tx(held.map((r) => r.deliveryId))}`;
      const e = await tx`delete from notification_events where event_id in ${tx(held.map((r) => r.eventId))}`;
      return [d.count, e.count];
    });
    expect([deliveries, events]).toEqual([2, 2]);
    expect(await pruneOnce(t().db.db, { days: 30, now: NOW })).toEqual({ events: 0, deliveries: 0 });
  });

  it("two run side by side on the same backlog: both succeed and each row is deleted once", async () => {
    const user = await t().signUp();
    for (let i = 0; i < 40; i++) await agedEvent(t().db.db, user.id, old());
    const [a, b] = await Promise.all([
      pruneOnce(t().db.db, { days: 30, now: NOW, batchSize: 5 }),
      pruneOnce(t().db.db, { days: 30, now: NOW, batchSize: 5 }),
    ]);
    expect(a.events + b.events).toBe(40);
    expect(a.deliveries + b.deliveries).toBe(40);
  });
});
