// Issue U.12 in a real Chromium: the inbox is in the navigation of every signed-in user (an admin's sections
// and, alone, the nav of an account that is not an admin), and a notification's URL is a link only where the
// service's own rule allows it (server/notifications/urls.ts: an https: URL or a path of the app),
// opened with rel="noopener noreferrer"; a row stored before that rule (javascript:, a //host) stays text.
// A path of the app leads into APP_BASE_URL, never to the console's own origin (issue AD.3), and is text
// when APP_BASE_URL is unset. Each state is held to the console's bar at 1366 and 390 px (h.checkView).
import { describe, expect, test } from "vitest";
import { notifications } from "../../db/schema/index.js";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { type ConsoleHarness, useConsole } from "./harness.js";

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
const APP = "https://app.example.com";

/** Four notifications for `user`, straight into the table: the service refuses the last two now, but rows from before the rule hold them. */
async function seedNotifications(h: ConsoleHarness, user: TestUser) {
  const notice = (title: string, url: string, minutes: number) => ({
    userId: user.id,
    eventType: "message.received",
    category: "messages",
    title,
    data: { url },
    dateCreated: minutesAgo(minutes),
  });
  await h
    .app()
    .db.db.insert(notifications)
    .values([
      notice("An https link", "https://app.example.com/inbox/48213", 4),
      notice("A path of the app", "/leads/7", 3),
      notice("A script", "javascript:alert(document.cookie)", 2),
      notice("Another host", "//evil.example/x", 1),
    ]);
}

describe.skipIf(!chromiumFound())("the inbox: in the navigation, its links", () => {
  const h = useConsole();
  let user: TestUser;

  const page = () => h.page();
  const nav = () => page().getByRole("navigation", { name: "Sections" });
  const item = (title: string) =>
    page()
      .locator(".inbox-item")
      .filter({ has: page().getByRole("heading", { name: title, exact: true }) });

  test("an admin's navigation has the inbox, marked as the page shown once opened", async () => {
    const admin = await h.app().signUp({ admin: true });
    await h.signIn(admin.email);
    const link = nav().getByRole("link", { name: "Inbox", exact: true });
    expect(await link.getAttribute("aria-current")).toBeNull();
    await link.click();
    await page().getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    expect(new URL(page().url()).pathname).toBe("/console/inbox");
    expect(await link.getAttribute("aria-current")).toBe("page");
    // Last: everything an admin sees besides stays where it was.
    expect(await nav().getByRole("link").allTextContents()).toContain("Cohorts");
    await page().getByRole("button", { name: "Sign out" }).click();
  });

  test("an account that is not an admin has a navigation with its own sections alone, the inbox first", async () => {
    user = await h.app().signUp({ name: "Ana Lima" });
    await seedNotifications(h, user);
    await page().getByLabel("Email").waitFor();
    await page().getByLabel("Email").fill(user.email);
    await page().getByLabel("Password").fill(TEST_PASSWORD);
    await page().getByRole("button", { name: "Sign in" }).click();
    await page().getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    expect(await nav().getByRole("link").allTextContents()).toEqual(["Inbox", "Preferences", "Account"]);
    expect(await nav().getByRole("link", { name: "Inbox" }).getAttribute("aria-current")).toBe("page");
  });

  test("a URL the rule allows is a link that opens without the opener; any other stays text", async () => {
    await item("Another host").waitFor();
    const link = item("An https link").getByRole("link", { name: "https://app.example.com/inbox/48213" });
    expect(await link.getAttribute("href")).toBe("https://app.example.com/inbox/48213");
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    for (const [title, url] of [
      // APP_BASE_URL is unset: no app to link the path into, and the console's origin is not the app's.
      ["A path of the app", "/leads/7"],
      ["A script", "javascript:alert(document.cookie)"],
      ["Another host", "//evil.example/x"],
    ] as const) {
      expect(await item(title).getByRole("link").count()).toBe(0);
      await item(title).getByText(url, { exact: true }).waitFor();
    }
    await h.checkView("inbox-links");
  });

  test("no page errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});

describe.skipIf(!chromiumFound())("the inbox with APP_BASE_URL: a path leads into the app", () => {
  const h = useConsole({ appBaseUrl: APP });
  const page = () => h.page();
  const item = (title: string) =>
    page()
      .locator(".inbox-item")
      .filter({ has: page().getByRole("heading", { name: title, exact: true }) });

  test("the path is a link to APP_BASE_URL joined with it, which opens the app's page", async () => {
    const user = await h.app().signUp({ name: "Rui Costa" });
    await seedNotifications(h, user);
    // The inbox's own address: an account that is not an admin lands elsewhere from /console.
    await page().goto("/console/inbox");
    await page().getByLabel("Email").fill(user.email);
    await page().getByLabel("Password").fill(TEST_PASSWORD);
    await page().getByRole("button", { name: "Sign in" }).click();
    await page().getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    const link = item("A path of the app").getByRole("link", { name: "/leads/7" });
    expect(await link.getAttribute("href")).toBe(`${APP}/leads/7`);
    expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    // Refused urls stay text whatever APP_BASE_URL is.
    expect(await item("Another host").getByRole("link").count()).toBe(0);
    await h.checkView("inbox-links-app");
    // The app stands in for itself: nothing leaves the machine.
    await page().route(`${APP}/**`, (route) => route.fulfill({ contentType: "text/html", body: "<title>Lead 7</title><h1>Lead 7</h1>" }));
    await link.click();
    await page().waitForURL(`${APP}/leads/7`);
  });
});
