// A notification's link is an absolute https: URL or a path of the app (docs/api.md#limits): anything a
// browser could run (javascript:, data:) or send to another host (//host) never reaches the table or a push.
// The producer API rejects that event alone, naming the field; the admin test endpoints answer 400.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { notificationEvents, notifications } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";
import { eventFor, producer } from "../helpers/producers.js";

const REFUSED = [
  "javascript:alert(document.cookie)",
  "data:text/html,<script>alert(1)</script>",
  "//evil.example/x",
  "http://example.com/",
];
const RULE = "must be an absolute https: URL or a path starting with / (not // or /\\)";

describe("the links a notification may carry", () => {
  const t = useTestApp();
  const p = producer(t);

  it("producer API: an event with a script, data, scheme-relative or http link is rejected alone, naming url", async () => {
    const key = await p.key();
    const user = await t().signUp();
    const good = [eventFor(user.id, { url: "/inbox/7" }), eventFor(user.id, { url: "https://example.com/a" })];
    const bad = REFUSED.map((url) => eventFor(user.id, { url }));
    const results = await p.results(key, [good[0], ...bad, good[1]]);
    expect(results.map((r) => [r.status, r.error])).toEqual([
      ["created", undefined],
      ...REFUSED.map(() => ["rejected", `url: ${RULE}`]),
      ["created", undefined],
    ]);
    const stored = await t().db.db.select({ data: notifications.data }).from(notifications).where(eq(notifications.userId, user.id));
    expect(stored.map((n) => (n.data as { url: string }).url).sort()).toEqual(["/inbox/7", "https://example.com/a"]);
    const claimed = await t().db.db.select().from(notificationEvents).where(eq(notificationEvents.userId, user.id));
    expect(claimed).toHaveLength(2);
  });

  it.each(["in-app", "push"])("admin test %s endpoint: 400 naming url, and nothing stored", async (kind) => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    for (const url of REFUSED) {
      const res = await t().app.inject({
        method: "POST",
        url: `/api/notifications/test/${kind}`,
        headers: { ...admin.headers, "content-type": "application/json" },
        payload: { type: "system.test", title: "Hi", targetUserId: user.id, url },
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "url", message: RULE }] });
    }
    expect(await t().db.db.select().from(notifications).where(eq(notifications.userId, user.id))).toEqual([]);
  });

  it("tRPC test endpoint: BAD_REQUEST naming url; an https link and an app path are kept", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const send = (url: string) =>
      t().caller(admin).notifications.testInApp({ type: "system.test", title: "Hi", targetUserId: user.id, url });
    await expect(send("javascript:alert(1)")).rejects.toMatchObject({ code: "BAD_REQUEST", details: [{ field: "url", message: RULE }] });
    expect((await send("https://example.com/x")).notification.data).toEqual({ url: "https://example.com/x" });
    expect((await send("/inbox")).notification.data).toEqual({ url: "/inbox" });
  });
});
