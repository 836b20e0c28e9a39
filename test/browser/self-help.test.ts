// An ordinary user helping themselves in a real Chromium (issue AD item 4): they land on their inbox, not
// on "No access"; on Account a wrong current password is refused in words with focus on the error, a new
// one ends their session elsewhere and signs in; "End my other sessions" ends another; on Preferences a
// channel turned off is saved (read back through the API). Each view is held to the console's bar.
import { describe, expect, test } from "vitest";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const NEW_PASSWORD = "a-brand-new-password-42";

describe.skipIf(!chromiumFound())("an ordinary user's own account and preferences", () => {
  const h = useConsole();
  let user: TestUser;
  const page = () => h.page();
  const nav = () => page().getByRole("navigation", { name: "Sections" });
  /** "tag:text" of the focused element. */
  const focused = () =>
    page().evaluate(() => {
      const el = document.activeElement;
      return `${el?.tagName.toLowerCase()}:${(el?.textContent ?? "").trim()}`;
    });
  /** Whether this session token still opens a session (get-session answers null once it ended). */
  const sessionAlive = async (headers: Record<string, string>) =>
    (await h.app().app.inject({ method: "GET", url: "/api/auth/get-session", headers })).json() !== null;
  /** A program's sign-in: the status and, on success, the new session's bearer headers. */
  const signInAs = async (email: string, password: string) => {
    const res = await h.app().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { "content-type": "application/json" },
      payload: { email, password },
    });
    const token = (res.json() as { token?: string }).token;
    return { status: res.statusCode, headers: { authorization: `Bearer ${token}` } };
  };

  test("signing in lands on the inbox, with Preferences and Account in the navigation", async () => {
    user = await h.app().signUp({ name: "Uma User" });
    await page().goto("/console");
    await page().getByLabel("Email").fill(user.email);
    await page().getByLabel("Password").fill(TEST_PASSWORD);
    await page().getByRole("button", { name: "Sign in" }).click();
    await page().getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    expect(new URL(page().url()).pathname).toBe("/console/inbox");
    expect(await nav().getByRole("link").allTextContents()).toEqual(["Inbox", "Preferences", "Account"]);
    // An admin view still says why it is closed, and links back to what is theirs.
    await page().goto("/console/cohorts");
    await page().getByRole("heading", { level: 1, name: "No access to the operator console" }).waitFor();
    await page().getByRole("link", { name: "your account" }).click();
    await page().getByRole("heading", { level: 1, name: "Your account" }).waitFor();
  });

  test("a wrong current password is refused in words, focus on the error", async () => {
    await page().getByLabel("Current password").fill("not-my-password-at-all");
    await page().getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page().getByLabel("New password again").fill(NEW_PASSWORD);
    await page().getByRole("button", { name: "Change password" }).click();
    await page().getByText("The current password is not right. Your password was not changed.").waitFor();
    await expect.poll(focused).toMatch(/^div:Password not changed: The current password is not right/);
    await h.checkView("self-help-password-refused");
    expect(await sessionAlive(user.headers)).toBe(true);
  });

  test("a new password ends the session elsewhere, keeps this one, and signs in", async () => {
    await page().getByLabel("Current password").fill(TEST_PASSWORD);
    await page().getByLabel("New password", { exact: true }).fill(NEW_PASSWORD);
    await page().getByLabel("New password again").fill(NEW_PASSWORD);
    await page().getByRole("button", { name: "Change password" }).click();
    await page().getByText("Password changed. Your other sessions have ended").waitFor();
    await expect.poll(focused).toMatch(/^div:Password changed/);
    await h.checkView("self-help-password-changed");
    // The session of the sign-up (another device, say) ended; the page's own goes on.
    expect(await sessionAlive(user.headers)).toBe(false);
    await nav().getByRole("link", { name: "Inbox" }).click();
    await page().getByRole("heading", { level: 1, name: "Your notifications" }).waitFor();
    expect((await signInAs(user.email, TEST_PASSWORD)).status).toBe(401);
    expect((await signInAs(user.email, NEW_PASSWORD)).status).toBe(200);
  });

  test("End my other sessions ends another session and keeps this one", async () => {
    const elsewhere = await signInAs(user.email, NEW_PASSWORD);
    expect(await sessionAlive(elsewhere.headers)).toBe(true);
    await nav().getByRole("link", { name: "Account" }).click();
    await page().getByRole("button", { name: "End my other sessions" }).click();
    await page().getByText("Your other sessions have ended.").waitFor();
    await expect.poll(focused).toBe("div:Your other sessions have ended.");
    expect(await sessionAlive(elsewhere.headers)).toBe(false);
    await nav().getByRole("link", { name: "Preferences" }).click();
    await page().getByRole("heading", { level: 1, name: "Notification preferences" }).waitFor();
  });

  test("a preference turned off is saved, and the API reads it back", async () => {
    await page().locator("[aria-busy=true]:visible").first().waitFor({ state: "detached" });
    await h.checkView("self-help-preferences");
    const billingPush = page().getByRole("checkbox", { name: "Billing: Push" });
    expect(await billingPush.isChecked()).toBe(true);
    await billingPush.uncheck();
    await page().getByRole("button", { name: "Save preferences" }).click();
    await page().getByText("Preferences saved.").waitFor();
    await expect.poll(focused).toBe("div:Preferences saved.");
    const { preferences } = await h.app().caller(user).notifications.getPreferences();
    expect(preferences.billing).toEqual({ inApp: true, push: false });
    expect(preferences.messages).toEqual({ inApp: true, push: true });
    // After a reload the page shows what the service holds.
    await page().reload();
    await page().getByRole("heading", { level: 1, name: "Notification preferences" }).waitFor();
    expect(await page().getByRole("checkbox", { name: "Billing: Push" }).isChecked()).toBe(false);
  });

  test("the pages ran without errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});
