// Push subscriptions (docs/api.md#push-subscriptions) and the admin test endpoints other than push delivery
// (docs/api.md#admin-test-endpoints) through createCaller against a real, migrated database.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { notifications, pushSubscriptions } from "../../db/schema/index.js";
import { makeSubscriber } from "../../tools/local-push-service.js";
import { type TestUser, useTestApp } from "../helpers/app.js";

const keys = () => {
  const { p256dh, auth } = makeSubscriber();
  return { p256dh, auth };
};
const endpoint = () => `https://push.example.test/send/${randomUUID()}`;

describe("subscription and admin test procedures (createCaller)", () => {
  const t = useTestApp();

  const api = (user: TestUser | null, userAgent?: string) => t().caller(user, userAgent).notifications;

  const storedData = async (id: string) =>
    (await t().db.db.select({ data: notifications.data }).from(notifications).where(eq(notifications.id, id)))[0]!.data;

  const expectAppError = (promise: Promise<unknown>, kind: string, message?: string) =>
    expect(promise).rejects.toMatchObject({ kind, ...(message ? { message } : {}) });

  describe("push subscriptions", () => {
    it("subscribes with the user-agent, lists active ones only, and unsubscribes by endpoint", async () => {
      const user = await t().signUp();
      const a = endpoint();
      const b = endpoint();
      const { subscription } = await api(user, "Firefox/140").subscribe({ endpoint: a, ...keys() });
      expect(subscription).toMatchObject({ userId: user.id, endpoint: a, userAgent: "Firefox/140", isActive: true });
      await api(user).subscribe({ endpoint: b, ...keys() });
      expect((await api(user).listSubscriptions()).subscriptions.map((s) => [s.endpoint, s.userAgent])).toEqual([
        [a, "Firefox/140"],
        [b, null],
      ]);
      expect(await api(user).unsubscribe({ endpoint: a })).toEqual({ success: true });
      expect((await api(user).listSubscriptions()).subscriptions.map((s) => s.endpoint)).toEqual([b]);
      expect(await api(user).unsubscribe({ endpoint: a })).toEqual({ success: true });
    });

    it("upserts by endpoint: new keys, reactivated, and moved to the user who subscribes again", async () => {
      const first = await t().signUp();
      const second = await t().signUp();
      const url = endpoint();
      const original = (await api(first).subscribe({ endpoint: url, ...keys() })).subscription;
      await api(first).unsubscribe({ endpoint: url });
      const newKeys = keys();
      const again = (await api(first, "Chrome/150").subscribe({ endpoint: url, ...newKeys })).subscription;
      expect(again).toMatchObject({ id: original.id, isActive: true, userAgent: "Chrome/150", ...newKeys });
      const moved = (await api(second).subscribe({ endpoint: url, ...newKeys })).subscription;
      expect(moved).toMatchObject({ id: original.id, userId: second.id, isActive: true });
      expect((await api(first).listSubscriptions()).subscriptions).toEqual([]);
      expect((await api(second).listSubscriptions()).subscriptions.map((s) => s.id)).toEqual([original.id]);
      const rows = await t().db.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, url));
      expect(rows).toHaveLength(1);
    });

    it("unsubscribing leaves another user's subscription with the same endpoint alone", async () => {
      const owner = await t().signUp();
      const other = await t().signUp();
      const url = endpoint();
      await api(owner).subscribe({ endpoint: url, ...keys() });
      await api(other).unsubscribe({ endpoint: url });
      expect((await api(owner).listSubscriptions()).subscriptions.map((s) => s.endpoint)).toEqual([url]);
    });

    it("requires https: endpoints and well-formed keys", async () => {
      const user = await t().signUp();
      const invalid = (input: Record<string, unknown>, field: string) =>
        expect(api(user).subscribe({ endpoint: endpoint(), ...keys(), ...input } as never)).rejects.toMatchObject({
          kind: "VALIDATION_ERROR",
          details: [expect.objectContaining({ field })],
        });
      await invalid({ endpoint: "http://127.0.0.1:9/push" }, "endpoint");
      await invalid({ endpoint: "not a url" }, "endpoint");
      await invalid({ endpoint: `https://x.test/${"a".repeat(2048)}` }, "endpoint");
      await invalid({ endpoint: undefined }, "endpoint");
      await invalid({ p256dh: undefined }, "p256dh");
      await invalid({ p256dh: "AAAA" }, "p256dh");
      await invalid({ auth: undefined }, "auth");
      await invalid({ auth: "not base64url!" }, "auth");
      await expect(api(user).unsubscribe({} as never)).rejects.toMatchObject({
        kind: "VALIDATION_ERROR",
        details: [expect.objectContaining({ field: "endpoint" })],
      });
    });
  });

  describe("admin test endpoints", () => {
    it("testInApp creates a notification: category from the type, body null when absent, data {url}", async () => {
      const admin = await t().signUp({ admin: true });
      const target = await t().signUp();
      const { notification } = await api(admin).testInApp({ type: "invoice.paid", title: "Paid", targetUserId: target.id });
      expect(notification).toMatchObject({
        userId: target.id,
        eventType: "invoice.paid",
        category: "billing",
        title: "Paid",
        body: null,
        readAt: null,
        data: null,
      });
      const withUrl = await api(admin).testInApp({
        type: "weekly_digest",
        title: "Digest",
        body: "Your week",
        url: "https://app.example.test/digest",
        targetUserId: target.id,
      });
      expect(withUrl.notification).toMatchObject({
        category: "system",
        body: "Your week",
        data: { url: "https://app.example.test/digest" },
      });
      expect(await storedData(withUrl.notification.id)).toEqual({ url: "https://app.example.test/digest" });
      expect((await api(target).list()).notifications.map((n) => n.title)).toEqual(["Digest", "Paid"]);
    });

    it("testInApp requires type, title and targetUserId, and an existing target user", async () => {
      const admin = await t().signUp({ admin: true });
      const target = await t().signUp();
      const base = { type: "lead.new", title: "Lead", targetUserId: target.id };
      for (const field of ["type", "title", "targetUserId"] as const) {
        await expect(api(admin).testInApp({ ...base, [field]: undefined } as never)).rejects.toMatchObject({
          kind: "VALIDATION_ERROR",
          details: [expect.objectContaining({ field })],
        });
        await expect(api(admin).testInApp({ ...base, [field]: "  " })).rejects.toMatchObject({ kind: "VALIDATION_ERROR" });
      }
      await expectAppError(api(admin).testInApp({ ...base, targetUserId: "nobody" }), "NOT_FOUND", "User nobody not found");
    });

    it("lists every user's subscriptions with userName and userEmail, and clears only the caller's own", async () => {
      const admin = await t().signUp({ admin: true, name: "Ada Admin" });
      const user = await t().signUp({ name: "Una User" });
      const mine = endpoint();
      const theirs = endpoint();
      await api(admin).subscribe({ endpoint: mine, ...keys() });
      await api(user).subscribe({ endpoint: theirs, ...keys() });
      const before = (await api(admin).testListSubscriptions()).subscriptions;
      expect(before.find((s) => s.endpoint === mine)).toMatchObject({ userName: "Ada Admin", userEmail: admin.email, isActive: true });
      expect(before.find((s) => s.endpoint === theirs)).toMatchObject({ userName: "Una User", userEmail: user.email });

      expect(await api(admin).testClearSubscriptions()).toEqual({ success: true });
      const after = (await api(admin).testListSubscriptions()).subscriptions;
      expect(after.find((s) => s.endpoint === mine)?.isActive).toBe(false);
      expect(after.find((s) => s.endpoint === theirs)?.isActive).toBe(true);
      expect((await api(admin).listSubscriptions()).subscriptions).toEqual([]);
    });

    it("are for platform admins only; everything needs a signed-in caller", async () => {
      const user = await t().signUp();
      await expectAppError(api(user).testInApp({ type: "x", title: "x", targetUserId: user.id }), "FORBIDDEN");
      await expectAppError(api(user).testListSubscriptions(), "FORBIDDEN");
      await expectAppError(api(user).testClearSubscriptions(), "FORBIDDEN");
      await expectAppError(api(null).list(), "UNAUTHORIZED");
      await expectAppError(api(null).unreadCount(), "UNAUTHORIZED");
      await expectAppError(api(null).listSubscriptions(), "UNAUTHORIZED");
    });
  });
});
