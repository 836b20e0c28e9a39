// The signed-in user's own inbox in a real Chromium: the header's unread badge opens it; notifications are
// listed newest first, marked read one by one or all at once, deleted after confirming, through the same
// procedures an app uses, and the badge's live count follows each change. The test sender finds its
// recipient by email. Focus follows the view: the <h1> after signing in, after a link, after creating a
// cohort; not on the first page load. A user who is not a platform admin gets a page with a heading and
// their own inbox. Every state is held to the console's bar (h.checkView: fits 1366 and 390 px, no axe-core
// violation).
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("your notifications, the test sender's recipient, focus", () => {
  const h = useConsole();
  let admin: TestUser;

  const page = () => h.page();
  const nav = () => page().getByRole("navigation", { name: "Sections" });
  const badge = () => page().getByRole("status", { name: /unread notifications/ });
  const items = () =>
    page()
      .getByRole("list")
      .filter({ has: page().locator(".inbox-item") })
      .getByRole("listitem");
  const item = (title: string) => items().filter({ has: page().getByRole("heading", { name: title, exact: true }) });
  /** What has focus, as "tag:text" ("body:" when nothing does). */
  const focused = () =>
    page().evaluate(() => {
      const el = document.activeElement;
      return el ? `${el.tagName.toLowerCase()}:${el === document.body ? "" : (el.textContent ?? "").trim()}` : "none";
    });
  const send = (to: TestUser, type: string, title: string, body?: string) =>
    h.app().caller(admin).notifications.testInApp({ type, title, body, targetUserId: to.id });

  test("after signing in focus is on the Cohorts heading; opening the console afresh leaves focus alone", async () => {
    admin = await h.app().signUp({ admin: true, name: "Olivia Operator" });
    await h.signIn(admin.email);
    await expect.poll(focused).toBe("h1:Cohorts");

    // The first load of /console redirects to /console/cohorts: no view was asked for, focus stays put.
    await page().goto("/console");
    await page().getByRole("heading", { name: "Cohorts", exact: true }).waitFor();
    expect(await focused()).toBe("body:");
  });

  test("a navigation link moves focus to the new view's heading; applying filters does not", async () => {
    await nav().getByRole("link", { name: "Audit log" }).click();
    await expect.poll(focused).toBe("h1:Audit log");
    await page().getByRole("button", { name: "Apply filters" }).click();
    await page().getByRole("region", { name: "Events" }).waitFor();
    // Only the query string changed: the same view, so focus stays on the button the operator pressed.
    expect(await focused()).toBe("button:Apply filters");
  });

  test("creating a cohort through the form puts focus on the new cohort's heading", async () => {
    await h.app().db.db.insert(pros).values({ id: "pro-f001", name: "Pro f001" });
    await nav().getByRole("link", { name: "Cohorts", exact: true }).click();
    await expect.poll(focused).toBe("h1:Cohorts");
    await page().getByLabel("Cohort number").fill("31");
    await page().getByLabel("Pro ids", { exact: true }).fill("pro-f001");
    await page().getByRole("button", { name: "Create cohort 31" }).click();
    await page()
      .getByRole("heading", { level: 1, name: /^Cohort 31/ })
      .waitFor();
    await expect.poll(focused).toMatch(/^h1:Cohort 31/);
  });

  test("the unread badge is a link to your inbox, empty at first", async () => {
    await badge().filter({ hasText: "0 unread" }).waitFor();
    await page().getByRole("link", { name: "0 unread: open your notifications" }).click();
    await expect.poll(focused).toBe("h1:Your notifications");
    await page().getByText("No notifications. What the service sends you in-app lands here.").waitFor();
    await h.checkView("inbox-empty");
  });

  test("notifications sent meanwhile show up, newest first, with body, category, time and state", async () => {
    await send(admin, "invoice.paid", "Invoice paid", "Invoice 2026-114 was paid in full.");
    await send(admin, "message.received", "New message from Alice", "Hi! Are you free on Tuesday?");
    await send(admin, "lead.created", "A new lead");
    // No reload: the live count changes, and with it the inbox on screen.
    await badge().filter({ hasText: "3 unread" }).waitFor({ timeout: 5_000 });
    await items().nth(2).waitFor();
    expect(await items().locator("h3").allTextContents()).toEqual(["A new lead", "New message from Alice", "Invoice paid"]);
    const paid = await item("Invoice paid").textContent();
    expect(paid).toContain("Unread");
    expect(paid).toContain("Invoice 2026-114 was paid in full.");
    expect(paid).toMatch(/billing · invoice\.paid/);
    expect(await item("Invoice paid").locator("time").count()).toBe(1);
    await page()
      .getByRole("heading", { name: /^3 notifications\s*3 unread in all/ })
      .waitFor();
    await h.checkView("inbox-with-items");

    await page().getByLabel("Category").selectOption("billing");
    await page().getByRole("button", { name: "Apply filters" }).click();
    await page()
      .getByRole("heading", { name: /^1 match/ })
      .waitFor();
    expect(await items().locator("h3").allTextContents()).toEqual(["Invoice paid"]);
    // Same view, new filters: focus stays on the button the operator pressed.
    expect(await focused()).toBe("button:Apply filters");
    await page().getByLabel("Category").selectOption("");
    await page().getByLabel("Title or text contains").fill("TUESDAY");
    await page().getByRole("button", { name: "Apply filters" }).click();
    await page().getByRole("button", { name: "Mark all read, not only these matches" }).waitFor();
    await item("New message from Alice").waitFor();
    expect(await items().locator("h3").allTextContents()).toEqual(["New message from Alice"]);
    await page().getByLabel("Title or text contains").fill("");
    await page().getByRole("button", { name: "Apply filters" }).click();
    await items().nth(2).waitFor();
  });

  test("marking one read: the badge drops live, the row reads Read, the API agrees", async () => {
    await item("New message from Alice").getByRole("button", { name: "Mark read: New message from Alice" }).click();
    await badge().filter({ hasText: "2 unread" }).waitFor({ timeout: 5_000 });
    await item("New message from Alice").getByText("Read", { exact: true }).waitFor();
    expect(
      await item("New message from Alice")
        .getByRole("button", { name: /^Mark read/ })
        .count(),
    ).toBe(0);
    // Its button is gone; focus stays on that notification.
    expect(await focused()).toBe("h3:New message from Alice");
    const { notifications } = await h.app().caller(admin).notifications.list();
    expect(notifications.find((n) => n.title === "New message from Alice")?.readAt).toBeInstanceOf(Date);
  });

  test("marking all read empties the badge", async () => {
    await page().getByRole("button", { name: "Mark all read" }).click();
    await page().getByText("Marked 2 notifications read.").waitFor();
    await badge().filter({ hasText: "0 unread" }).waitFor({ timeout: 5_000 });
    expect(await h.app().caller(admin).notifications.unreadCount()).toEqual({ count: 0 });
  });

  test("deleting one asks first; then its row is gone and the API lists it no more", async () => {
    await item("A new lead").getByRole("button", { name: "Delete A new lead" }).click();
    const dialog = page().getByRole("dialog", { name: "Delete this notification?" });
    await dialog.getByText("“A new lead” leaves your inbox, here and in your apps. There is no undo.").waitFor();
    await h.checkView("inbox-delete-dialog", { viewport: true });
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page().getByText("Deleted “A new lead”.").waitFor();
    await item("A new lead").waitFor({ state: "detached" });
    expect(await items().count()).toBe(2);
    expect(await focused()).toBe("p:Deleted “A new lead”.");
    const { notifications, total } = await h.app().caller(admin).notifications.list();
    expect(notifications.map((n) => n.title)).toEqual(["New message from Alice", "Invoice paid"]);
    expect(total).toBe(2);
  });

  test("more than a page: Older shows the rest", async () => {
    for (let i = 1; i <= 19; i++) await send(admin, "system.batch", `Batch ${String(i).padStart(2, "0")}`);
    await badge().filter({ hasText: "19 unread" }).waitFor({ timeout: 5_000 });
    await page().getByText("Page 1 of 2").waitFor();
    expect(await items().count()).toBe(20);
    await page().getByRole("button", { name: "Older" }).click();
    await page().getByText("Page 2 of 2").waitFor();
    await item("Invoice paid").waitFor();
    expect(await items().locator("h3").allTextContents()).toEqual(["Invoice paid"]);
  });

  test("the test sender finds the recipient by email and sends to them", async () => {
    const alice = await h.app().signUp({ name: "Alice Example" });
    await nav().getByRole("link", { name: "Test sender" }).click();
    await expect.poll(focused).toBe("h1:Test sender");

    // Nobody chosen: said in words next to the search, which takes focus.
    await page().getByLabel("Title").fill("Hello Alice");
    await page().getByRole("button", { name: "Send in-app" }).click();
    await page().getByText("Choose who receives it: find a user by email, press Send to me, or enter a user id.").waitFor();
    expect(await page().evaluate(() => (document.activeElement as HTMLInputElement).type)).toBe("search");

    const search = page().getByRole("searchbox", { name: "Email address contains" });
    await search.fill("no-such-person");
    await page().getByRole("button", { name: "Find", exact: true }).click();
    await page().getByText("No user's email address contains “no-such-person”.").waitFor();

    // Part of the address, in any case.
    const localPart = alice.email.split("@")[0]!;
    await search.fill(localPart.toUpperCase());
    await page().getByRole("button", { name: "Find", exact: true }).click();
    await page().getByText("1 user found: choose one.").waitFor();
    await page()
      .getByRole("list", { name: "Users found" })
      .getByRole("button", { name: new RegExp(`Alice Example\\s*${alice.email}`) })
      .click();
    await page().getByText(`Sends to Alice Example <${alice.email}> (user id ${alice.id}).`).waitFor();
    await h.checkView("test-sender-search");

    await page().getByRole("button", { name: "Send in-app" }).click();
    await page().getByText(`In-app notification created: Hello Alice for Alice Example <${alice.email}>`).waitFor();
    const { notifications } = await h.app().caller(alice).notifications.list();
    expect(notifications.map((n) => n.title)).toEqual(["Hello Alice"]);
  });

  test("a raw user id still works, behind its disclosure", async () => {
    const bob = await h.app().signUp({ name: "Bob Builder" });
    await page().getByText("Enter a user id instead").click();
    await page().getByLabel("User id").fill(bob.id);
    await page().getByText(`Sends to (user id ${bob.id}), typed in: the service checks it when sending.`).waitFor();
    await page().getByLabel("Title").fill("Hello Bob");
    await page().getByRole("button", { name: "Send in-app" }).click();
    await page().getByText("In-app notification created: Hello Bob").waitFor();
    expect((await h.app().caller(bob).notifications.list()).notifications.map((n) => n.title)).toEqual(["Hello Bob"]);
  });

  test("signed out, the sign-in page passes the bar", async () => {
    await page().getByRole("button", { name: "Sign out" }).click();
    await page().getByRole("heading", { name: "Sign in" }).waitFor();
    await h.checkView("sign-in");
  });

  test("a user who is not a platform admin gets a heading, the reason, and their own inbox", async () => {
    const user = await h.app().signUp({ name: "Uma User" });
    await send(user, "review.posted", "Your first review");
    await page().getByLabel("Email").fill(user.email);
    await page().getByLabel("Password").fill(TEST_PASSWORD);
    await page().getByRole("button", { name: "Sign in" }).click();
    await expect.poll(focused).toBe("h1:No access to the operator console");
    await page().getByText(`${user.email} is not a platform admin`).waitFor();
    // Their sections are their own: the inbox (issue U.12), preferences and account (AD 4).
    expect(await nav().getByRole("link").allTextContents()).toEqual(["Inbox", "Preferences", "Account"]);
    await badge().filter({ hasText: "1 unread" }).waitFor();
    await h.checkView("no-access");

    await page().getByRole("link", { name: "open your notifications", exact: true }).click();
    await expect.poll(focused).toBe("h1:Your notifications");
    await item("Your first review").waitFor();
    await item("Your first review")
      .getByRole("button", { name: /^Mark read/ })
      .click();
    await badge().filter({ hasText: "0 unread" }).waitFor({ timeout: 5_000 });
  });

  test("the page ran under the service's Content-Security-Policy without errors", () => {
    const blocked = h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p));
    expect(blocked).toEqual([]);
  });
});
