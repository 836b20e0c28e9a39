// The Deliveries page in a real Chromium: producers' events seeded straight into the database (a sent and a
// failed delivery, a queued one, a gone one, none at all, each "none" with its reason) show each status with
// its attempts and words, and the user by email and name; the producer and user (email or id) filters narrow
// the list and live in the address; a producer with no events shows the empty state; a queued delivery's row
// updates by itself; in a window too narrow for a row the table's box scrolls and a keyboard can scroll it.
// Every state is held to the console's bar at 1366 and 390 px (h.checkView: fits the screen, no axe-core
// violation).
import { randomUUID } from "node:crypto";
import { AxeBuilder } from "@axe-core/playwright";
import { eq } from "drizzle-orm";
import { describe, expect, test } from "vitest";
import { notificationEvents, pushDeliveries, pushSubscriptions } from "../../db/schema/index.js";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const PUSH_OFF = "No push: this user turned push off for this category";
const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);

describe.skipIf(!chromiumFound())("Deliveries page", () => {
  const h = useConsole();
  let user: TestUser;
  const notificationId = randomUUID();

  const rows = () => h.page().locator("table.deliveries tbody tr");
  const row = (eventId: string) => h.page().getByRole("row", { name: new RegExp(eventId) });

  async function seed() {
    const { db } = h.app().db;
    user = await h.app().signUp({ name: "Ana Lima" });
    const subscription = (n: number) => ({
      userId: user.id,
      endpoint: `https://push.example/${randomUUID()}`,
      p256dh: `key-${n}`,
      auth: `auth-${n}`,
    });
    const [phone, laptop, tablet] = await db
      .insert(pushSubscriptions)
      .values([subscription(1), subscription(2), { ...subscription(3), isActive: false }])
      .returning();
    await db.insert(notificationEvents).values([
      { producer: "billing-service", eventId: "invoice-41", userId: user.id, notificationId: randomUUID(), createdAt: minutesAgo(40) },
      { producer: "billing-service", eventId: "invoice-42", userId: user.id, notificationId, createdAt: minutesAgo(30) },
      { producer: "messaging-service", eventId: "message-7", userId: user.id, notificationId: randomUUID(), createdAt: minutesAgo(20) },
      {
        producer: "billing-service",
        eventId: "invoice-43",
        userId: user.id,
        notificationId: null,
        noPush: "push_off",
        createdAt: minutesAgo(10),
      },
    ]);
    const delivery = { payload: { title: "Hello" }, urgency: "normal" };
    await db.insert(pushDeliveries).values([
      {
        ...delivery,
        producer: "billing-service",
        eventId: "invoice-41",
        subscriptionId: tablet!.id,
        status: "gone",
        attempts: 1,
        lastStatusCode: 410,
        lastError: "Push service answered HTTP 410",
      },
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

  test("an admin opens the page from the navigation: no events yet", async () => {
    const admin = await h.app().signUp({ admin: true });
    await h.signIn(admin.email);
    const page = h.page();
    await page.getByRole("link", { name: "Deliveries" }).click();
    await page.getByRole("heading", { level: 1, name: "Deliveries" }).waitFor();
    await page.getByText("No events from producers yet.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/deliveries");
    expect(await page.getByRole("link", { name: "Deliveries" }).getAttribute("aria-current")).toBe("page");
    await h.checkView("deliveries-empty");
  });

  test("Refresh lists the producers' events, newest first", async () => {
    await seed();
    const page = h.page();
    await page.getByRole("button", { name: "Refresh" }).click();
    await row("invoice-42").waitFor();
    expect(await page.getByRole("table", { name: /Producers' events/ }).count()).toBe(1);
    const eventIds = await rows().locator("td[data-label='Event id']").allTextContents();
    expect(eventIds).toEqual(["invoice-43", "message-7", "invoice-42", "invoice-41"]);
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
    // The user by email and name, not by id.
    const userCell = sentAndFailed.locator("td[data-label='User']");
    expect([await userCell.locator(".user-email").textContent(), await userCell.locator(".user-name").textContent()]).toEqual([
      user.email,
      "Ana Lima",
    ]);

    const queued = await row("message-7").locator("li.delivery").textContent();
    expect(queued).toMatch(/^Queued/);
    expect(queued).toContain("1 attempt");
    expect(queued).toContain("next attempt");
    expect(queued).toContain("Push service answered HTTP 429: too many requests");
    expect(await h.page().getByText("again every 5 s while a delivery is queued").count()).toBe(1);

    const none = row("invoice-43");
    await none.getByText(PUSH_OFF).waitFor();
    await none.getByText("none (in-app off)").waitFor();

    const gone = await row("invoice-41").locator("li.delivery").textContent();
    expect(gone).toMatch(/^Gone/);
    expect(gone).toContain("Push service answered HTTP 410: subscription expired");
    await h.checkView("deliveries-list");
  });

  test("the producer filter narrows the list and stays in the address", async () => {
    const page = h.page();
    await page.getByLabel("Producer").fill("messaging-service");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/\/console\/deliveries\?producer=messaging-service$/);
    await expect.poll(() => rows().count()).toBe(1);
    await row("message-7").waitFor();
    // The form follows the address without being rebuilt: focus stays on the button pressed.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Apply filters");

    await page.reload();
    await row("message-7").waitFor();
    expect(await rows().count()).toBe(1);
    expect(await page.getByLabel("Producer").inputValue()).toBe("messaging-service");

    await page.getByLabel("Producer").fill("billing-service");
    await page.getByLabel("User (email or id)").fill(user.email.toUpperCase());
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/[?&]user=USER-/);
    await expect
      .poll(() => rows().locator("td[data-label='Event id']").allTextContents())
      .toEqual(["invoice-43", "invoice-42", "invoice-41"]);
    await h.checkView("deliveries-filtered");
    // An id still filters, and the address this view used before (userId=) still opens it.
    await page.goto(`/console/deliveries?userId=${user.id}`);
    await expect.poll(() => rows().count()).toBe(4);
    expect(await page.getByLabel("User (email or id)").inputValue()).toBe(user.id);
    await page.getByLabel("User (email or id)").fill("nobody@example.test");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("No events for user nobody@example.test.").waitFor();
    await page.goBack();
    await expect.poll(() => rows().count()).toBe(4);
    await page.getByLabel("Producer").fill("billing-service");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => rows().count()).toBe(3);
  });

  test("a producer with no events shows the empty state", async () => {
    const page = h.page();
    await page.getByLabel("Producer").fill("pricing-service");
    await page.getByLabel("User (email or id)").fill("");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("No events from pricing-service.").waitFor();
    await page.getByText("Clear the filters to see every producer's events.").waitFor();
    expect(await page.getByRole("table").count()).toBe(0);
    await h.checkView("deliveries-filtered-empty");
    // Back: the form shows the filters of the address it returns to.
    await page.goBack();
    await expect.poll(() => page.getByLabel("Producer").inputValue()).toBe("billing-service");
    await page.getByRole("button", { name: "Clear" }).click();
    await row("invoice-42").waitFor();
    expect(new URL(page.url()).search).toBe("");
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

    await db.insert(notificationEvents).values([
      { producer: "billing-service", eventId: "invoice-44", userId: user.id, notificationId: null, noPush: "no_subscription" },
      { producer: "billing-service", eventId: "invoice-45", userId: user.id, notificationId: null, noPush: "push_not_configured" },
      { producer: "billing-service", eventId: "invoice-46", userId: user.id, notificationId: null, noPush: null },
    ]);
    await page.getByRole("button", { name: "Refresh" }).click();
    await row("invoice-44").waitFor();
    expect(await rows().count()).toBe(7);
    await row("invoice-44").getByText("No push: this user had no active push subscription").waitFor();
    await row("invoice-45").getByText("No push: push is not configured on this service (no VAPID keys)").waitFor();
    // Received before the reason was kept: the view cannot say which, and says so.
    await row("invoice-46").getByText("No push (received before the reason was kept: push off, or no subscription)").waitFor();
  });

  test("in a window too narrow for a row, the table's box scrolls, takes focus and scrolls by keyboard", async () => {
    const page = h.page();
    const box = page.locator(".table-scroll");
    try {
      // Wider than a phone (the table's rows are not stacked), narrower than the columns' least widths.
      await page.setViewportSize({ width: 820, height: 860 });
      await expect.poll(() => box.getAttribute("tabindex")).toBe("0");
      expect(await box.getAttribute("role")).toBe("region");
      expect(await box.getAttribute("aria-label")).toBe("Producers' events, scrolls sideways");
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.map((v) => v.id)).toEqual([]);
      await box.focus();
      await page.keyboard.press("ArrowRight");
      await expect.poll(() => box.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
    } finally {
      await page.setViewportSize({ width: 1366, height: 860 });
    }
    // Wide enough: all of it shows, and the box is out of the tab order.
    await expect.poll(() => box.getAttribute("tabindex")).toBeNull();
    expect(await box.getAttribute("role")).toBeNull();
  });

  test("no page errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});
