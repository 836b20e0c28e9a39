// The inbox procedures through createCaller against a real, migrated database: listing, ordering and search
// (docs/api.md#inbox-listing, #search), read and delete with ownership (docs/api.md#read-and-delete).
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { notifications } from "../../db/schema/index.js";
import { type TestUser, useTestApp } from "../helpers/app.js";

type Seed = Partial<typeof notifications.$inferInsert>;

describe("inbox procedures (createCaller)", () => {
  const t = useTestApp();

  const api = (user: TestUser | null, userAgent?: string) => t().caller(user, userAgent).notifications;

  /** Stores notifications directly; dateCreated counts down from now so the first seed is newest. */
  async function seed(user: TestUser, rows: Seed[]) {
    const base = Date.now();
    return t()
      .db.db.insert(notifications)
      .values(
        rows.map((row, i) => ({
          userId: user.id,
          eventType: "message.received",
          category: "messages",
          title: `Notification ${i}`,
          dateCreated: new Date(base - i * 1000),
          ...row,
        })),
      )
      .returning();
  }

  const stored = async (id: string) => (await t().db.db.select().from(notifications).where(eq(notifications.id, id)))[0]!;

  const expectAppError = (promise: Promise<unknown>, kind: string, message?: string) =>
    expect(promise).rejects.toMatchObject({ kind, ...(message ? { message } : {}) });

  describe("list", () => {
    it("shows the Notification resource: no deletedAt, data when it is an object, null otherwise", async () => {
      const user = await t().signUp();
      await seed(user, [
        { title: "with data", data: { url: "/inbox/1", n: 2 } },
        { title: "without data", body: "some body" },
        { title: "list data", data: [1, 2] },
        { title: "scalar data", data: 42 },
      ]);
      const list = await api(user).list();
      expect(list.notifications.map((n) => [n.title, n.data])).toEqual([
        ["with data", { url: "/inbox/1", n: 2 }],
        ["without data", null],
        ["list data", null],
        ["scalar data", null],
      ]);
      const first = list.notifications[0]!;
      expect(Object.keys(first).sort()).toEqual(
        ["body", "category", "data", "dateCreated", "eventType", "id", "readAt", "title", "userId"].sort(),
      );
      expect(first).toMatchObject({ userId: user.id, eventType: "message.received", category: "messages", body: null, readAt: null });
      expect(first.dateCreated).toBeInstanceOf(Date);
      expect(list).toMatchObject({ total: 4, unread_count: 4, page: 1, has_more: false });
    });

    it("lists newest first, then by id descending when timestamps tie, and hides deleted ones", async () => {
      const user = await t().signUp();
      const same = new Date("2026-01-01T00:00:00.000Z");
      const rows = await seed(user, [
        { title: "tie a", dateCreated: same },
        { title: "tie b", dateCreated: same },
        { title: "older", dateCreated: new Date("2025-12-31T00:00:00.000Z") },
        { title: "newest", dateCreated: new Date("2026-02-01T00:00:00.000Z") },
        { title: "deleted", dateCreated: new Date("2026-03-01T00:00:00.000Z"), deletedAt: new Date() },
      ]);
      const ties = rows.filter((r) => r.title.startsWith("tie")).sort((a, b) => (a.id < b.id ? 1 : -1));
      const list = await api(user).list({});
      expect(list.notifications.map((n) => n.title)).toEqual(["newest", ...ties.map((r) => r.title), "older"]);
      expect(list.total).toBe(4);
    });

    it("filters by a valid category only; an invalid one is ignored", async () => {
      const user = await t().signUp();
      await seed(user, [
        { title: "m", category: "messages" },
        { title: "b", category: "billing" },
        { title: "s", category: "system" },
      ]);
      expect((await api(user).list({ category: "billing" })).notifications.map((n) => n.title)).toEqual(["b"]);
      expect((await api(user).list({ category: "nonsense" })).total).toBe(3);
      // A repeated query key is the REST adapter's to settle (test/unit/rest-query.test.ts); the procedure takes one value.
      await expectAppError(api(user).list({ category: ["system", "billing"] as never }), "VALIDATION_ERROR");
    });

    it("searches title or body, case-insensitively, with % _ and \\ matching themselves", async () => {
      const user = await t().signUp();
      await seed(user, [
        { title: "50% OFF today" },
        { title: "500 off" },
        { title: "snake a_b" },
        { title: "axb" },
        { title: "path", body: "C:\\temp" },
        { title: "other path", body: "C:temp" },
      ]);
      const titles = async (search: string) => (await api(user).list({ search })).notifications.map((n) => n.title).sort();
      expect(await titles("off")).toEqual(["50% OFF today", "500 off"]);
      expect(await titles("%")).toEqual(["50% OFF today"]);
      expect(await titles("a_b")).toEqual(["snake a_b"]);
      expect(await titles("\\")).toEqual(["path"]);
      expect(await titles("TEMP")).toEqual(["other path", "path"]);
      expect(await titles("nothing like it")).toEqual([]);
      expect(await titles("")).toHaveLength(6);
    });

    it("counts the filtered total, but unread_count is the caller's whole unread count", async () => {
      const user = await t().signUp();
      await seed(user, [
        { title: "bill 1", category: "billing" },
        { title: "bill 2", category: "billing", readAt: new Date() },
        { title: "msg", category: "messages" },
        { title: "gone", category: "messages", deletedAt: new Date() },
      ]);
      const list = await api(user).list({ category: "billing", search: "bill" });
      expect(list).toMatchObject({ total: 2, unread_count: 2 });
    });

    it("pages with offset (page - 1) * limit and has_more = page * limit < total", async () => {
      const user = await t().signUp();
      await seed(
        user,
        Array.from({ length: 5 }, (_, i) => ({ title: `n${i}` })),
      );
      const page = (p: number, l: number) => api(user).list({ page: p, limit: l });
      expect(await page(1, 2)).toMatchObject({ page: 1, total: 5, has_more: true });
      expect((await page(2, 2)).notifications.map((n) => n.title)).toEqual(["n2", "n3"]);
      const last = await page(3, 2);
      expect(last.notifications.map((n) => n.title)).toEqual(["n4"]);
      expect(last.has_more).toBe(false);
      expect(await page(9, 2)).toMatchObject({ page: 9, notifications: [], has_more: false, total: 5 });
      expect((await page(2.7, 2)).page).toBe(2);
      expect((await page(0, 2)).page).toBe(1);
      expect((await page(-4, 2)).page).toBe(1);
    });

    it("defaults limit to 30 and clamps it to 1..100", async () => {
      const user = await t().signUp();
      await seed(
        user,
        Array.from({ length: 101 }, (_, i) => ({ title: `n${i}` })),
      );
      const count = async (limit?: number) => (await api(user).list({ limit })).notifications.length;
      expect(await count()).toBe(30);
      expect(await count(0)).toBe(30);
      expect(await count(-3)).toBe(1);
      expect(await count(100)).toBe(100);
      expect(await count(500)).toBe(100);
      expect((await api(user).list({ limit: 500 })).has_more).toBe(true);
    });

    it("rejects a search longer than 200 characters", async () => {
      const user = await t().signUp();
      await expectAppError(api(user).list({ search: "x".repeat(201) }), "VALIDATION_ERROR");
    });
  });

  describe("unreadCount, markRead and markAllRead", () => {
    it("counts unread, visible notifications only", async () => {
      const user = await t().signUp();
      await seed(user, [{}, {}, { readAt: new Date() }, { deletedAt: new Date() }]);
      expect(await api(user).unreadCount()).toEqual({ count: 2 });
    });

    it("marks one read and keeps the first readAt when marked again", async () => {
      const user = await t().signUp();
      const [row] = await seed(user, [{}]);
      expect(await api(user).markRead({ id: row!.id })).toEqual({ success: true });
      const firstReadAt = (await stored(row!.id)).readAt;
      expect(firstReadAt).toBeInstanceOf(Date);
      await api(user).markRead({ id: row!.id });
      expect((await stored(row!.id)).readAt).toEqual(firstReadAt);
      expect(await api(user).unreadCount()).toEqual({ count: 0 });
    });

    it("answers not found for unknown, malformed and deleted ids", async () => {
      const user = await t().signUp();
      const [deleted] = await seed(user, [{ deletedAt: new Date() }]);
      const unknown = randomUUID();
      await expectAppError(api(user).markRead({ id: unknown }), "NOT_FOUND", `Notification ${unknown} not found`);
      await expectAppError(api(user).markRead({ id: "not-a-uuid" }), "NOT_FOUND", "Notification not-a-uuid not found");
      await expectAppError(api(user).markRead({ id: deleted!.id }), "NOT_FOUND", `Notification ${deleted!.id} not found`);
    });

    it("markAllRead marks a valid category only, everything for an invalid or missing one, and counts changes", async () => {
      const user = await t().signUp();
      const other = await t().signUp();
      await seed(other, [{ category: "billing" }]);
      await seed(user, [
        { category: "billing" },
        { category: "billing" },
        { category: "messages" },
        { category: "system", readAt: new Date() },
        { category: "system", deletedAt: new Date() },
      ]);
      expect(await api(user).markAllRead({ category: "billing" })).toEqual({ updated: 2 });
      expect(await api(user).unreadCount()).toEqual({ count: 1 });
      expect(await api(user).markAllRead({ category: "bogus" })).toEqual({ updated: 1 });
      expect(await api(user).markAllRead()).toEqual({ updated: 0 });
      expect(await api(other).unreadCount()).toEqual({ count: 1 });
    });
  });

  describe("remove and removeMany", () => {
    it("soft-deletes: deletedAt set, hidden from list and counts, a second delete is not found", async () => {
      const user = await t().signUp();
      const [row] = await seed(user, [{}]);
      expect(await api(user).remove({ id: row!.id })).toEqual({ success: true });
      expect((await stored(row!.id)).deletedAt).toBeInstanceOf(Date);
      expect(await api(user).list()).toMatchObject({ notifications: [], total: 0, unread_count: 0 });
      await expectAppError(api(user).remove({ id: row!.id }), "NOT_FOUND", `Notification ${row!.id} not found`);
      await expectAppError(api(user).remove({ id: "42" }), "NOT_FOUND", "Notification 42 not found");
    });

    it("removeMany changes only the caller's visible records and ignores the rest", async () => {
      const user = await t().signUp();
      const other = await t().signUp();
      const mine = await seed(user, [{}, {}, {}]);
      const [alreadyDeleted] = await seed(user, [{ deletedAt: new Date("2026-01-01T00:00:00.000Z") }]);
      const [theirs] = await seed(other, [{}]);
      const ids = [mine[0]!.id, mine[1]!.id, mine[1]!.id, theirs!.id, alreadyDeleted!.id, randomUUID(), "junk", ""];
      expect(await api(user).removeMany({ ids })).toEqual({ deleted: 2 });
      expect((await api(user).list()).notifications.map((n) => n.id)).toEqual([mine[2]!.id]);
      expect((await stored(theirs!.id)).deletedAt).toBeNull();
      expect((await stored(alreadyDeleted!.id)).deletedAt).toEqual(new Date("2026-01-01T00:00:00.000Z"));
      expect(await api(user).removeMany({ ids: ["junk"] })).toEqual({ deleted: 0 });
    });

    it("removeMany requires a non-empty ids array", async () => {
      const user = await t().signUp();
      for (const input of [{}, { ids: "x" }, { ids: [] }, { ids: null }]) {
        await expect(api(user).removeMany(input as { ids: string[] })).rejects.toMatchObject({
          kind: "VALIDATION_ERROR",
          details: [expect.objectContaining({ field: "ids" })],
        });
      }
    });
  });

  describe("ownership: another user can neither read, mark nor delete", () => {
    it("keeps the first user's notifications out of reach and unchanged", async () => {
      const owner = await t().signUp();
      const intruder = await t().signUp();
      const [row] = await seed(owner, [{ title: "private" }]);
      expect((await api(intruder).list({ search: "private" })).total).toBe(0);
      expect(await api(intruder).unreadCount()).toEqual({ count: 0 });
      await expectAppError(api(intruder).markRead({ id: row!.id }), "FORBIDDEN", "Access denied");
      await expectAppError(api(intruder).remove({ id: row!.id }), "FORBIDDEN", "Access denied");
      expect(await api(intruder).markAllRead()).toEqual({ updated: 0 });
      expect(await api(intruder).removeMany({ ids: [row!.id] })).toEqual({ deleted: 0 });
      const after = await stored(row!.id);
      expect(after.readAt).toBeNull();
      expect(after.deletedAt).toBeNull();
    });
  });
});
