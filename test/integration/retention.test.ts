// Nothing a producer sends is kept without a bound (docs/operators.md#retention): events and push deliveries go
// RETENTION_DAYS after they were made, by the job every instance runs, and at once with their user. Two
// pruners at once: test/postgres/retention-pruners.test.ts.
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { notificationEvents, pushDeliveries } from "../../db/schema/index.js";
import { type Pruned, pruneOnce } from "../../server/producers/retention.js";
import { createTestApp, useTestApp } from "../helpers/app.js";
import { accountAct } from "../helpers/four-eyes.js";
import { agedEvent } from "../helpers/push.js";

const DAY = 24 * 60 * 60_000;
/** The clock the tests prune by: far from the real one, so only the dates given count. */
const NOW = new Date("2031-03-15T12:00:00Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);

describe("retention of producer events and push deliveries", () => {
  const t = useTestApp();
  const db = () => t().db.db;
  const eventIds = async (ids: string[]) =>
    (await db().select({ id: notificationEvents.eventId }).from(notificationEvents).where(inArray(notificationEvents.eventId, ids))).map(
      (r) => r.id,
    );
  const deliveryIds = async (ids: string[]) =>
    (await db().select({ id: pushDeliveries.id }).from(pushDeliveries).where(inArray(pushDeliveries.id, ids))).map((r) => r.id);

  it("deletes what is older than the days kept, by the clock it is given, and keeps the rest", async () => {
    const user = await t().signUp();
    const old = await Promise.all([31, 45, 400].map((d) => agedEvent(db(), user.id, daysAgo(d))));
    const young = await Promise.all([29, 1].map((d) => agedEvent(db(), user.id, daysAgo(d))));
    const all = [...old, ...young];
    // In batches of two, so it takes several rounds to go through the old ones.
    expect(await pruneOnce(db(), { days: 30, now: NOW, batchSize: 2 })).toEqual({ events: 3, deliveries: 3 });
    expect((await eventIds(all.map((e) => e.eventId))).sort()).toEqual(young.map((e) => e.eventId).sort());
    expect((await deliveryIds(all.map((e) => e.deliveryId))).sort()).toEqual(young.map((e) => e.deliveryId).sort());
    // A day later the 29-day-old ones are still within 30 days; two days later they are not.
    expect(await pruneOnce(db(), { days: 30, now: new Date(NOW.getTime() + DAY / 2) })).toEqual({ events: 0, deliveries: 0 });
    expect(await pruneOnce(db(), { days: 30, now: new Date(NOW.getTime() + 2 * DAY) })).toEqual({ events: 1, deliveries: 1 });
  });

  it("the service's job prunes on its own and stops with the service", async () => {
    const user = await t().signUp();
    const old = await agedEvent(db(), user.id, daysAgo(31));
    let firstRun!: (pruned: Pruned) => void;
    const ran = new Promise<Pruned>((resolve) => (firstRun = resolve));
    // A second instance on the same database, its job due at once; the next run would be an hour on.
    const instance = await createTestApp({
      db: t().db,
      retention: { days: 30, firstRunMs: 0, now: () => NOW, onPruned: (p) => firstRun(p) },
    });
    try {
      expect(await ran).toMatchObject({ events: expect.any(Number), deliveries: expect.any(Number) });
      expect(await eventIds([old.eventId])).toEqual([]);
    } finally {
      // Closing waits for the job to stop: a run in progress never outlives the service.
      await instance.app.close();
    }
  });

  it("removing a user removes their events and deliveries with them", async () => {
    const admin = await t().signUp({ admin: true });
    const [leaving, staying] = [await t().signUp(), await t().signUp()];
    const theirs = await agedEvent(db(), leaving.id, daysAgo(1));
    const kept = await agedEvent(db(), staying.id, daysAgo(1));
    const removed = await accountAct.remove(t(), admin, leaving.id);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(await eventIds([theirs.eventId, kept.eventId])).toEqual([kept.eventId]);
    expect(await deliveryIds([theirs.deliveryId, kept.deliveryId])).toEqual([kept.deliveryId]);
    expect(await db().select().from(notificationEvents).where(eq(notificationEvents.userId, leaving.id))).toEqual([]);
  });
});
