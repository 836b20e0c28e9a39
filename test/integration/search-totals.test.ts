// A remembered search total (server/memory/search-totals.ts) stands in for the count only in the inbox state
// it was counted in, named by the user's notification_counts versions (migration 0025). Planted totals
// show both sides: one offered at the current version is answered as is (so the count was skipped), one
// offered at any other version is counted afresh. Random writes, searches racing them and two instances
// against count(*): test/integration/notification-counts.property.test.ts.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { notifications } from "../../db/schema/index.js";
import { searchTotalKey } from "../../server/memory/search-totals.js";
import { containsPattern } from "../../server/notifications/search.js";
import { useTestApp } from "../helpers/app.js";

describe(`remembered search totals (${process.env.TEST_DB ?? "pglite"})`, () => {
  const t = useTestApp();

  async function userWithRefunds(refunds: number) {
    const user = await t().signUp();
    await t()
      .db.db.insert(notifications)
      .values(
        Array.from({ length: refunds + 2 }, (_, i) => ({
          userId: user.id,
          eventType: "billing.refund",
          category: "billing",
          title: i < refunds ? `Refund ${i}` : `Invoice ${i}`,
        })),
      );
    const key = searchTotalKey(user.id, null, containsPattern("refund"));
    return { user, inbox: t().caller(user).notifications, key };
  }

  it("is answered as remembered while the inbox is in the state it was counted in", async () => {
    const { inbox, key } = await userWithRefunds(3);
    expect((await inbox.list({ search: "refund" })).total).toBe(3);
    const counted = t().searchTotals.get(key)!;
    expect(counted.total).toBe(3);

    // Not a total anyone could count: only the remembered one can answer it.
    t().searchTotals.remember(key, { version: counted.version, total: 42 });
    const answered = await inbox.list({ search: "refund" });
    expect(answered.total).toBe(42);
    expect(answered.notifications).toHaveLength(3);
  });

  it("is counted afresh when offered for any other state", async () => {
    const { inbox, key } = await userWithRefunds(2);
    await inbox.list({ search: "refund" });
    const counted = t().searchTotals.get(key)!;
    for (const version of ["", "0", `${counted.version},1`, counted.version.split(",").slice(1).join(",")]) {
      t().searchTotals.remember(key, { version, total: 42 });
      expect((await inbox.list({ search: "refund" })).total, `offered at version "${version}"`).toBe(2);
    }
  });

  it("is counted afresh after a write that moves no count: a title rewritten in SQL", async () => {
    const { user, inbox } = await userWithRefunds(1);
    await inbox.list({ search: "refund" });
    await t()
      .db.db.update(notifications)
      .set({ title: "Refund again" })
      .where(sql`${notifications.userId} = ${user.id} and ${notifications.title} = 'Invoice 1'`);
    expect((await inbox.list({ search: "refund" })).total).toBe(2);
  });

  it("is counted afresh after a notification arrives, is read and is deleted", async () => {
    const { user, inbox } = await userWithRefunds(1);
    await inbox.list({ search: "refund" });
    const [arrived] = await t()
      .db.db.insert(notifications)
      .values({ userId: user.id, eventType: "billing.refund", category: "billing", title: "Refund late" })
      .returning();
    expect((await inbox.list({ search: "refund" })).total).toBe(2);
    await inbox.markRead({ id: arrived!.id });
    expect((await inbox.list({ search: "refund" })).total).toBe(2);
    await inbox.remove({ id: arrived!.id });
    expect((await inbox.list({ search: "refund" })).total).toBe(1);
    await t().db.db.delete(notifications).where(eq(notifications.userId, user.id));
    expect((await inbox.list({ search: "refund" })).total).toBe(0);
  });
});
