// Issue U.12 in a real Chromium: the inbox is in the navigation of every signed-in user (an admin's sections
// and, alone, the nav of an account that is not an admin), and a notification's URL is a link only where the
// service's own rule allows it (server/routers/notifications/urls.ts: an https: URL or a path of the app),
// opened with rel="noopener noreferrer"; a row stored before that rule (javascript:, a //host) stays text.
// Each state is held to the console's bar at 1366 and 390 px (h.checkView).
import { describe, expect, test } from "vitest";
import { notifications } from "../../db/schema/index.js";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);

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

  test("an account that is not an admin has a navigation with its inbox alone", async () => {
    user = await h.app().signUp({ name: "Ana Lima" });
    const { db } = h.app().db;
    const notice = (title: string, url: string, minutes: number) => ({
      userId: user.id,
      eventType: "message.received",
      category: "messages",
      title,
      data: { url },
      dateCreated: minutesAgo(minutes),
    });
    // Straight into the table: the service refuses the last two now, but rows from before the rule hold them.
    await db
      .insert(notifications)
      .values([
        notice("An https link", "https://app.example.com/inbox/48213", 4),
        notice("A path of the app", "/leads/7", 3),
        notice("A script", "javascript:alert(document.cookie)", 2),
        notice("Another host", "//evil.example/x", 1),
      ]);
    await page().getByLabel("Email").waitFor();
    await page().getByLabel("Email").fill(user.email);
    await page().getByLabel("Password").fill(TEST_PASSWORD);
    await page().getByRole("button", { name: "Sign in" }).click();
    await page().getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    expect(await nav().getByRole("link").allTextContents()).toEqual(["Inbox"]);
    expect(await nav().getByRole("link", { name: "Inbox" }).getAttribute("aria-current")).toBe("page");
  });

  test("a URL the rule allows is a link that opens without the opener; any other stays text", async () => {
    await item("Another host").waitFor();
    for (const [title, url] of [
      ["An https link", "https://app.example.com/inbox/48213"],
      ["A path of the app", "/leads/7"],
    ] as const) {
      const link = item(title).getByRole("link", { name: url });
      expect(await link.getAttribute("href")).toBe(url);
      expect(await link.getAttribute("rel")).toBe("noopener noreferrer");
    }
    for (const [title, url] of [
      ["A script", "javascript:alert(document.cookie)"],
      ["Another host", "//evil.example/x"],
    ] as const) {
      expect(await item(title).getByRole("link").count()).toBe(0);
      await item(title).getByText(url, { exact: true }).waitFor();
    }
    await h.checkView("inbox-links");
  });

  test("the app's path leads into the app; no page errors", async () => {
    await item("A path of the app").getByRole("link", { name: "/leads/7" }).click();
    await page().waitForURL((url) => url.pathname === "/leads/7");
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});
