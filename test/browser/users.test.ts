// The Users view in a real Chromium, approvals off (docs/api.md#accounts): an admin finds users
// by email and by name, makes one (and is told in words when the address is taken), makes another an admin
// at once, bans one (their session ends, sign-in is refused) and unbans them, and ends a user's sessions
// with the keyboard alone. After each act focus is on its result; each act is in the audit trail and the
// row's "Audit log" link shows it. Every state is held to the console's bar at 1366 and 390 px.
import { describe, expect, test } from "vitest";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { roleOf } from "../helpers/four-eyes.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("the Users view, approvals off", () => {
  const h = useConsole();
  let admin: TestUser;
  let ann: TestUser;
  let bob: TestUser;
  let carl: TestUser;
  const page = () => h.page();
  const dialog = () => page().getByRole("dialog");
  const result = () => page().locator(".users-result");
  /** "tag:text" of the focused element. */
  const focused = () =>
    page().evaluate(() => {
      const el = document.activeElement;
      return `${el?.tagName.toLowerCase()}:${(el?.textContent ?? "").trim()}`;
    });
  /** Whether this session token still opens a session (get-session answers null once it ended). */
  const sessionAlive = async (user: TestUser) =>
    (await h.app().app.inject({ method: "GET", url: "/api/auth/get-session", headers: user.headers })).json() !== null;
  /** A program's sign-in as this user: its status and better-auth's code. */
  const signInAs = async (email: string, password = TEST_PASSWORD) => {
    const res = await h.app().app.inject({
      method: "POST",
      url: "/api/auth/sign-in/email",
      headers: { "content-type": "application/json" },
      payload: { email, password },
    });
    return { status: res.statusCode, code: (res.json() as { code?: string }).code };
  };
  const audited = async (userId: string) =>
    (await h.app().caller(admin).audit.list({ targetType: "user", targetId: userId, limit: 50 })).events.map((e) => e.action).sort();
  const find = async (text: string) => {
    await page().getByLabel("Email address or name contains").fill(text);
    await page().getByRole("button", { name: "Find" }).click();
  };

  test("the view is in the navigation; its heading takes the focus; users are found by email and by name", async () => {
    admin = await h.app().signUp({ admin: true, name: "Olivia Operator" });
    ann = await h.app().signUp({ name: "Ann Example", email: "ann@test.local" });
    bob = await h.app().signUp({ name: "Bob Builder", email: "bob@test.local" });
    carl = await h.app().signUp({ name: "Carl Keyboard", email: "carl@test.local" });
    await h.signIn(admin.email);
    await page().getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Users" }).click();
    await page().getByRole("heading", { level: 1, name: "Users" }).waitFor();
    await expect.poll(focused).toBe("h1:Users");
    await page().getByText("4 users.").waitFor();
    await h.checkView("users-list");

    // Addresses are stored in lower case: the search is too.
    await find("ANN@");
    await page().getByText("1 user found.").waitFor();
    expect(await page().getByRole("row").count()).toBe(2);
    await page()
      .getByRole("row", { name: /Ann Example/ })
      .waitFor();
    await find("Builder");
    await page()
      .getByRole("row", { name: /Bob Builder/ })
      .waitFor();
    await find("nobody-here");
    await page().getByText("No user's email address or name contains “nobody-here”.").waitFor();
  });

  test("creates a user: the result is focused and the new account listed; a taken address is refused in words", async () => {
    const form = page().getByRole("region", { name: "New user" });
    await form.getByRole("button", { name: "Create user" }).click();
    await form.getByText("Enter the person's name.").waitFor();
    expect(await focused()).toBe("input:");
    await form.getByLabel("Name").fill("Dana New");
    await form.getByLabel("Email address").fill("Dana@Test.local");
    await form.getByLabel("First password").fill("a-first-password");
    await form.getByRole("button", { name: "Create user" }).click();
    await result().getByText("Created Dana New <dana@test.local> as a user.").waitFor();
    await expect.poll(focused).toMatch(/^div:Created Dana New/);
    await page()
      .getByRole("row", { name: /Dana New/ })
      .waitFor();
    expect(await signInAs("dana@test.local", "a-first-password")).toMatchObject({ status: 200 });
    await h.checkView("users-created");

    await form.getByLabel("Name").fill("Dana Again");
    await form.getByLabel("Email address").fill("dana@test.local");
    await form.getByLabel("First password").fill("another-password");
    await form.getByRole("button", { name: "Create user" }).click();
    await form.getByRole("alert").getByText("User not created: User already exists. Use another email.").waitFor();
  });

  test("makes Ann an admin at once: the dialog says so, the role changes", async () => {
    await find("ann@");
    await page().getByRole("button", { name: "Make admin: ann@test.local" }).click();
    await dialog().getByRole("heading", { name: "Make Ann Example <ann@test.local> an admin?" }).waitFor();
    expect(await dialog().locator(".lead").textContent()).toMatch(/^Make Ann Example <ann@test\.local> an admin: at once/);
    await h.checkView("users-grant-dialog", { viewport: true });
    await dialog().getByRole("button", { name: "Make admin" }).click();
    await result().getByText("Ann Example <ann@test.local> is an admin now.").waitFor();
    await expect.poll(focused).toMatch(/^div:Ann Example <ann@test\.local> is an admin now/);
    expect(await roleOf(h.app(), ann.id)).toBe("admin");
    const row = page().getByRole("row", { name: /Ann Example/ });
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("Admin");
    await row.getByRole("button", { name: "Revoke admin: ann@test.local" }).waitFor();
  });

  test("bans Bob: his session ends and sign-in is refused; unbanned, he signs in again", async () => {
    expect(await sessionAlive(bob)).toBe(true);
    await find("bob@");
    await page().getByRole("button", { name: "Ban: bob@test.local" }).click();
    await dialog().getByLabel("Reason (kept in the audit log)").fill("shared his password");
    await dialog().getByLabel("How long").selectOption({ label: "7 days" });
    expect(await dialog().locator(".lead").textContent()).toBe(
      "Ban Bob Builder <bob@test.local> for 7 days: every session of theirs ends now and sign-in is refused.",
    );
    await dialog().getByRole("button", { name: "Ban", exact: true }).click();
    await result()
      .getByText(/is banned for 7 days/)
      .waitFor();
    await expect.poll(focused).toMatch(/^div:Bob Builder <bob@test\.local> is banned/);
    expect(await sessionAlive(bob)).toBe(false);
    expect(await signInAs(bob.email)).toEqual({ status: 403, code: "BANNED_USER" });
    const row = page().getByRole("row", { name: /Bob Builder/ });
    await row.getByText("shared his password").waitFor();
    expect(await row.locator(".badge").allTextContents()).toEqual(["User", "Banned"]);
    await h.checkView("users-banned");

    await row.getByRole("button", { name: "Unban: bob@test.local" }).click();
    await dialog().getByRole("button", { name: "Unban" }).click();
    await result().getByText("Bob Builder <bob@test.local> is unbanned: they can sign in again.").waitFor();
    expect(await signInAs(bob.email)).toMatchObject({ status: 200 });
  });

  test("ends Carl's sessions with the keyboard alone; focus lands on the result", async () => {
    expect(await sessionAlive(carl)).toBe(true);
    const search = page().getByLabel("Contains");
    await search.focus();
    await search.fill("");
    await page().keyboard.type("carl");
    await page().keyboard.press("Enter");
    await page().getByText("1 user found.").waitFor();
    // Tab from the search field to the row's button.
    let reached = false;
    for (let i = 0; i < 15 && !reached; i++) {
      await page().keyboard.press("Tab");
      reached = await page().evaluate(() => document.activeElement?.getAttribute("aria-label") === "End sessions: carl@test.local");
    }
    expect(reached).toBe(true);
    await page().keyboard.press("Enter");
    await dialog().getByRole("heading", { name: "End every session of Carl Keyboard <carl@test.local>?" }).waitFor();
    // The dialog takes the focus (its first button); Tab reaches the confirmation.
    await expect.poll(focused).toBe("button:Cancel");
    await page().keyboard.press("Tab");
    expect(await focused()).toBe("button:End sessions");
    await page().keyboard.press("Enter");
    await result().getByText("Every session of Carl Keyboard <carl@test.local> has ended: they must sign in again.").waitFor();
    await expect.poll(focused).toMatch(/^div:Every session of Carl Keyboard/);
    expect(await sessionAlive(carl)).toBe(false);
    // Not banned: he may sign in again.
    expect(await signInAs(carl.email)).toMatchObject({ status: 200 });
  });

  test("every act is in the audit trail, and a row's Audit log link shows it in words", async () => {
    expect(await audited(ann.id)).toEqual(["user.set_role"]);
    expect(await audited(bob.id)).toEqual(["user.ban", "user.unban"]);
    expect(await audited(carl.id)).toEqual(["user.revoke_sessions"]);
    const [dana] = (await h.app().caller(admin).audit.list({ action: "user.create", limit: 5 })).events;
    expect(dana?.after).toMatchObject({ email: "dana@test.local", role: "user" });

    await find("bob@");
    await page().getByRole("link", { name: "Audit log: bob@test.local" }).click();
    await page().getByRole("heading", { level: 1, name: "Audit log" }).waitFor();
    await page()
      .getByRole("cell", { name: /^User banned/ })
      .first()
      .waitFor();
    await page()
      .getByRole("cell", { name: /^User unbanned/ })
      .first()
      .waitFor();
  });

  test("the pages ran without errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});
