// The Deliveries page in a real Chromium: producers' events seeded straight into the database (a sent and a
// failed delivery, a queued one, none at all) show each status with its attempts and words; the producer
// filter narrows the list and lives in the address; a producer with no events shows the empty state; a
// queued delivery's row updates by itself. Checked at 1366 and at 390 px wide.
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { notificationEvents, pushDeliveries, pushSubscriptions } from "../../db/schema/index.js";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const NO_PUSH = "No push (push off for this user or category, or no subscription)";
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);

describe.skipIf(!chromiumFound())("Deliveries page", () => {
  const h = useConsole();
  let user: TestUser;
  const notificationId = randomUUID();

  const rows = () => h.page().locator("table.deliveries tbody tr");
  const row = (eventId: string) => h.page().getByRole("row", { name: new RegExp(eventId) });
  const pageWidth = () => h.page().evaluate(() => document.documentElement.scrollWidth);

  async function seed() {
    const { db } = h.app().db;
    user = await h.app().signUp();
    const subscription = (n: number) => ({
      userId: user.id,
      endpoint: `https://push.example/${randomUUID()}`,
      p256dh: `key-${n}`,
      auth: `auth-${n}`,
    });
    const [phone, laptop] = await db
      .insert(pushSubscriptions)
      .values([subscription(1), subscription(2)])
      .returning();
    await db.insert(notificationEvents).values([
      { producer: "billing-service", eventId: "invoice-42", userId: user.id, notificationId, createdAt: minutesAgo(30) },
      { producer: "messaging-service", eventId: "message-7", userId: user.id, notificationId: randomUUID(), createdAt: minutesAgo(20) },
      { producer: "billing-service", eventId: "invoice-43", userId: user.id, notificationId: null, createdAt: minutesAgo(10) },
    ]);
    const delivery = { payload: { title: "Hello" }, urgency: "normal" };
    await db.insert(pushDeliveries).values([
      {
        ...delivery,
        producer: "billing-service",
        eventId: "invoice-42",
        subscriptionId: phone!.id,
        status: "sent",
        attempts: 1,
        lastStatusCode: 201,
        sentAt: minutesAgo(29),
      },
      {
        ...delivery,
        producer: "billing-service",
        eventId: "invoice-42",
        subscriptionId: laptop!.id,
        status: "failed",
        attempts: 5,
        lastStatusCode: 503,
        lastError: "Push service answered HTTP 503",
      },
      {
        ...delivery,
        producer: "messaging-service",
        eventId: "message-7",
        subscriptionId: phone!.id,
        status: "queued",
        attempts: 1,
        lastStatusCode: 429,
        lastError: "Push service answered HTTP 429",
        nextAttemptAt: new Date(Date.now() + 10 * 60_000),
      },
    ]);
  }

  test("an admin opens the page from the navigation: newest event first", async () => {
    await seed();
    const admin = await h.app().signUp({ admin: true });
    await h.signIn(admin.email);
    const page = h.page();
    await page.getByRole("link", { name: "Deliveries" }).click();
    await page.getByRole("heading", { level: 1, name: "Deliveries" }).waitFor();
    await row("invoice-42").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/deliveries");
    expect(await page.getByRole("link", { name: "Deliveries" }).getAttribute("aria-current")).toBe("page");
    expect(await page.getByRole("table", { name: /Producers' events/ }).count()).toBe(1);
    const eventIds = await rows().locator("td[data-label='Event id']").allTextContents();
    expect(eventIds).toEqual(["invoice-43", "message-7", "invoice-42"]);
  });

  test("each delivery shows its status, attempts and what the push service answered", async () => {
    const sentAndFailed = row("invoice-42");
    await sentAndFailed.getByText("Sent", { exact: true }).waitFor();
    // Both were queued together: their order is the server's, not the test's.
    const texts = await sentAndFailed.locator("li.delivery").allTextContents();
    const sent = texts.find((t) => t.startsWith("Sent"));
    const failed = texts.find((t) => t.startsWith("Failed"));
    expect(texts).toHaveLength(2);
    expect(sent).toContain("1 attempt");
    expect(sent).toMatch(/sent .*\d/);
    expect(sent).toContain("Push service accepted it (HTTP 201)");
    expect(failed).toContain("5 attempts");
    expect(failed).toContain("Push service answered HTTP 503: push service unavailable");
    expect(await sentAndFailed.getByText(`${notificationId.slice(0, 8)}…`).getAttribute("title")).toBe(notificationId);
    expect(await sentAndFailed.getByText(user.id).count()).toBe(1);

    const queued = await row("message-7").locator("li.delivery").textContent();
    expect(queued).toMatch(/^Queued/);
    expect(queued).toContain("1 attempt");
    expect(queued).toContain("next attempt");
    expect(queued).toContain("Push service answered HTTP 429: too many requests");
    expect(await h.page().getByText("again every 5 s while a delivery is queued").count()).toBe(1);

    const none = row("invoice-43");
    await none.getByText(NO_PUSH).waitFor();
    await none.getByText("none (in-app off)").waitFor();
    expect(await pageWidth()).toBeLessThanOrEqual(1366);
    await h.screenshot("deliveries-01-list-1366");
  });

  test("the producer filter narrows the list and stays in the address", async () => {
    const page = h.page();
    await page.getByLabel("Producer").fill("messaging-service");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/\/console\/deliveries\?producer=messaging-service$/);
    await expect.poll(() => rows().count()).toBe(1);
    await row("message-7").waitFor();

    await page.reload();
    await row("message-7").waitFor();
    expect(await rows().count()).toBe(1);
    expect(await page.getByLabel("Producer").inputValue()).toBe("messaging-service");

    await page.getByLabel("Producer").fill("billing-service");
    await page.getByLabel("User id").fill(user.id);
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => rows().locator("td[data-label='Event id']").allTextContents()).toEqual(["invoice-43", "invoice-42"]);
  });

  test("a producer with no events shows the empty state", async () => {
    const page = h.page();
    await page.getByLabel("Producer").fill("pricing-service");
    await page.getByLabel("User id").fill("");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("No events from producers yet.").waitFor();
    await page.getByText("Only events from pricing-service are shown").waitFor();
    expect(await page.getByRole("table").count()).toBe(0);
    await h.screenshot("deliveries-02-empty-1366");
    await page.getByRole("button", { name: "Clear" }).click();
    await row("invoice-42").waitFor();
    expect(new URL(page.url()).search).toBe("");
  });

  test("at 390 px wide the page and its events fit the screen", async () => {
    const page = h.page();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await row("invoice-42").waitFor();
    expect(await pageWidth()).toBeLessThanOrEqual(390);
    await h.screenshot("deliveries-03-list-390");
    await page.setViewportSize({ width: 1366, height: 860 });
  });

  test("a queued delivery's row updates by itself; Refresh shows a new event", async () => {
    const page = h.page();
    const { db } = h.app().db;
    await db
      .update(pushDeliveries)
      .set({ status: "sent", attempts: 2, lastStatusCode: 201, lastError: null, sentAt: new Date() })
      .where(eq(pushDeliveries.eventId, "message-7"));
    // No click: the page asks again every 5 s while a delivery is queued.
    await row("message-7").getByText("2 attempts").waitFor({ timeout: 15_000 });
    expect(await row("message-7").locator("li.delivery").textContent()).toMatch(/^Sent/);

    await db
      .insert(notificationEvents)
      .values({ producer: "billing-service", eventId: "invoice-44", userId: user.id, notificationId: null });
    await page.getByRole("button", { name: "Refresh" }).click();
    await row("invoice-44").waitFor();
    expect(await rows().count()).toBe(4);
  });

  test("no page errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});
