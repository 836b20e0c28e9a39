// The operator's round trip in a real Chromium: sign in, create a cohort from an uploaded CSV, a failing
// then a passing gate check, preview and activate, the pro's history and the audit row, roll back with a
// reason. The tests run in order on one page, as an operator would; each saves a screenshot of its view.
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import { createContextInner } from "../../server/context.js";
import { createCaller } from "../../server/routers/index.js";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("operator console", () => {
  const h = useConsole();
  let admin: TestUser;
  let otherCohortId: string;

  /** Cohort 900, already active, shares pro-b001 with the cohort the operator makes. */
  async function seed() {
    admin = await h.app().signUp({ admin: true, name: "Olivia Operator" });
    await h
      .app()
      .db.db.insert(pros)
      .values(["pro-b001", "pro-b002", "pro-b003"].map((id) => ({ id, name: `Pro ${id}` })));
    const api = h.app().caller(admin).restriction;
    const other = await api.createCohort({ cohortNumber: 900, proIds: ["pro-b001"] });
    await api.checkGates({ id: other.id, responseRate: 0.9, comparisonsDone: 80, legalSignoff: true });
    await api.activateCohort({ id: other.id });
    otherCohortId = other.id;
  }

  const dialog = () => h.page().getByRole("dialog");

  test("signs in with email and password and lists the cohorts", async () => {
    await seed();
    const page = h.page();
    await h.signIn(admin.email);
    expect(await page.getByText(`Signed in as ${admin.email}`).isVisible()).toBe(true);
    const row = page.getByRole("row", { name: /Cohort 900/ });
    expect(await row.textContent()).toMatch(/Cohort 900\s*Active\s*1/);
    await h.screenshot("01-cohorts");
  });

  test("the keyboard reaches every section and focus is visible", async () => {
    const page = h.page();
    await page.getByRole("link", { name: "Cohorts", exact: true }).focus();
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { text: el.textContent, outline: getComputedStyle(el).outlineStyle };
    });
    expect(focused).toEqual({ text: "Pro lookup", outline: "solid" });
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Pro lookup" }).waitFor();
    await page.getByRole("link", { name: "pro-b001" }).waitFor();
    await h.screenshot("01b-keyboard-focus");
    await page.getByRole("link", { name: "Cohorts", exact: true }).click();
    await page.getByRole("heading", { name: "Cohorts", exact: true }).waitFor();
  });

  test("the unread badge follows the operator's own notifications live", async () => {
    const page = h.page();
    const badge = page.getByRole("status", { name: /unread notifications/ });
    await badge.filter({ hasText: "0 unread" }).waitFor();
    await h.app().caller(admin).notifications.testInApp({ type: "message.received", title: "For the badge", targetUserId: admin.id });
    // No reload: the count arrives over the subscription (docs/api.md#live-unread-count).
    await badge.filter({ hasText: "1 unread" }).waitFor({ timeout: 5_000 });
    await h.screenshot("01c-unread-badge", { viewport: true });
  });

  test("a CSV upload is checked before sending, then creates the cohort", async () => {
    const page = h.page();
    const upload = page.getByLabel("Or upload a CSV file");
    await upload.setInputFiles({ name: "repeats.csv", mimeType: "text/csv", buffer: Buffer.from("proId\npro-b001\npro-b002\npro-b001\n") });
    await page.getByText("Repeated: pro-b001").waitFor();
    expect(await page.getByRole("button", { name: /^Create cohort/ }).isDisabled()).toBe(true);
    await h.screenshot("02-csv-with-repeats");

    await upload.setInputFiles({
      name: "cohort.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("proId\npro-b001\npro-b002\npro-b003\npro-b004,pro-b005\n"),
    });
    await page.getByText("5 pro ids from cohort.csv").waitFor();
    // A number already taken is said at once, before sending.
    await page.getByLabel("Cohort number").fill("900");
    await page.getByText("Cohort 900 already exists.").waitFor();
    expect(await page.getByRole("button", { name: "Create cohort 900" }).isDisabled()).toBe(true);
    await page.getByLabel("Cohort number").fill("7");
    await page.getByRole("button", { name: "Create cohort 7" }).click();
    await page.getByRole("heading", { name: /^Cohort 7/ }).waitFor();
    await page.getByText("No gate check yet").waitFor();
    await page.getByText("Latest gate check: none yet, so activation is blocked.").waitFor();
    await h.screenshot("03-cohort-created");
  });

  test("a failing gate check blocks activation in the preview; a passing one clears it", async () => {
    const page = h.page();
    await page.getByLabel("Response rate").fill("0.5");
    await page.getByLabel("Comparisons done").fill("12");
    await page.getByRole("button", { name: "Run gate check" }).click();
    await page.getByRole("status").getByText("Gates not met.").waitFor();
    await page.getByRole("status").locator("code", { hasText: "response_rate 0.5 < 0.6; comparisons_done 12 < 50" }).waitFor();

    await page.getByRole("button", { name: "Preview activation…" }).click();
    await dialog().getByText("Activation blocked by unmet gates: response_rate 0.5 < 0.6").waitFor();
    expect(await dialog().getByRole("button", { name: "Activate" }).isDisabled()).toBe(true);
    await h.screenshot("04-activation-blocked", { viewport: true });
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "hidden" });

    await page.getByLabel("Response rate").fill("0.72");
    await page.getByLabel("Comparisons done").fill("64");
    await page.getByLabel("Legal has signed the rollout off").check();
    await page.getByRole("button", { name: "Run gate check" }).click();
    await page.getByText("All gates met: the cohort may be activated.").waitFor();
    const history = page.getByRole("region", { name: "Gate checks" }).getByRole("row");
    await history.nth(2).waitFor();
    expect(await history.nth(1).textContent()).toContain("All gates met");
    expect(await history.nth(2).textContent()).toContain("Blocked");
    await h.screenshot("05-gate-checks");
  });

  test("the confirmation dialog shows the preview's counts, then activates", async () => {
    const page = h.page();
    await page.getByRole("button", { name: "Preview activation…" }).click();
    const count = (label: string) =>
      dialog()
        .getByRole("row", { name: new RegExp(`^${label}`) })
        .getByRole("cell")
        .first();
    await count("Turn on").waitFor();
    expect(await count("Turn on").textContent()).toBe("4");
    expect(await count("Unchanged").textContent()).toBe("1");
    expect(await count("Unknown pros").textContent()).toBe("2");
    expect(await count("Also in other active cohorts").textContent()).toBe("1");
    await dialog().getByText("show which").click();
    await dialog().getByText("pro-b001: cohort 900").waitFor();
    await h.screenshot("06-activate-dialog", { viewport: true });

    await dialog().getByRole("button", { name: "Activate" }).click();
    await page.getByText("Cohort 7 activated.").waitFor();
    await page.getByRole("heading", { name: /Cohort 7\s*Active/ }).waitFor();
    expect(await h.app().caller(admin).restriction.getPro({ proId: "pro-b002" })).toMatchObject({ restrictionActive: true });
  });

  test("a pro's status and history name the cohort that changed it", async () => {
    const page = h.page();
    await page.getByText("Pro ids (5)").click();
    await page.getByRole("link", { name: "pro-b002" }).click();
    await page.getByRole("heading", { name: /pro-b002\s*Restricted/ }).waitFor();
    const change = page.getByRole("region", { name: "History" }).getByRole("row").nth(1);
    await change.waitFor();
    expect(await change.textContent()).toMatch(/off → on.*cohort 7.*/);
    expect(await change.textContent()).toContain(admin.email);
    await h.screenshot("07-pro-history");
  });

  test("the audit log filters by action and loads more by cursor", async () => {
    // 55 more gate checks of cohort 900, so its checks need a second page.
    for (let i = 0; i < 55; i++) {
      await h.app().caller(admin).restriction.checkGates({ id: otherCohortId, responseRate: 0.9, comparisonsDone: 80, legalSignoff: true });
    }
    const page = h.page();
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByLabel("Action").selectOption("cohort.activate");
    await page.getByRole("button", { name: "Apply filters" }).click();
    const rows = page.getByRole("region", { name: "Events" }).getByRole("row");
    await page.getByText("2 shown, the last page.").waitFor();
    expect(await rows.nth(1).textContent()).toMatch(new RegExp(`${admin.email}.*cohort\\.activate.*cohort 7`));
    await h.screenshot("08-audit-activate");

    await page.getByLabel("Action").selectOption("cohort.check_gates");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.getByText("50 shown.").waitFor();
    await page.getByRole("button", { name: "Load more" }).click();
    await page.getByText("58 shown, the last page.").waitFor();
  });

  test("the audit log names the admin behind a change made with an impersonation session", async () => {
    const impersonated = await h.app().signUp({ admin: true });
    const session = { id: "impersonation", expiresAt: new Date(Date.now() + 60_000), impersonatedBy: { id: admin.id, email: admin.email } };
    const api = createCaller(createContextInner({ db: h.app().db.db, push: h.app().push }, { user: impersonated, session })).restriction;
    await api.createCohort({ cohortNumber: 901, proIds: ["pro-b003"] });
    const page = h.page();
    await page.getByLabel("Action").selectOption("cohort.create");
    await page.getByRole("button", { name: "Apply filters" }).click();
    const row = page.getByRole("region", { name: "Events" }).getByRole("row", { name: new RegExp(impersonated.email) });
    expect(await row.textContent()).toContain(`${impersonated.email}impersonated by ${admin.email}`);
    await h.screenshot("08b-audit-impersonated");
  });

  test("rolls back with a reason after confirming", async () => {
    const page = h.page();
    await page.getByRole("link", { name: "Cohorts", exact: true }).click();
    await page.getByRole("link", { name: "Cohort 7" }).click();
    await page.getByRole("button", { name: "Preview rollback…" }).click();
    await dialog().getByText("1 pro of this cohort is also in another active cohort").waitFor();
    await dialog()
      .getByLabel(/^Reason/)
      .fill("complaints from pros");
    await h.screenshot("09-rollback-dialog", { viewport: true });
    await dialog().getByRole("button", { name: "Roll back" }).click();
    await page.getByText("Cohort 7 rolled back.").waitFor();
    await page.getByText("— complaints from pros").waitFor();
    await h.screenshot("10-rolled-back");
  });

  test("the test sender creates an in-app notification and shows a push refusal as the service put it", async () => {
    const page = h.page();
    const { count: before } = await h.app().caller(admin).notifications.unreadCount();
    await page.getByRole("link", { name: "Test sender" }).click();
    await page.getByRole("button", { name: "Send to me" }).click();
    await page.getByLabel("Title").fill("Hello from the console");
    await page.getByRole("button", { name: "Send in-app" }).click();
    await page.getByText("In-app notification created").waitFor();
    expect(await h.app().caller(admin).notifications.unreadCount()).toEqual({ count: before + 1 });
    // The header's badge follows it, with no reload.
    await page
      .getByRole("status", { name: /unread notifications/ })
      .filter({ hasText: `${before + 1} unread` })
      .waitFor();

    await page.getByRole("button", { name: "Send push" }).click();
    await page.getByRole("alert").getByText("VAPID not configured").waitFor();
    await h.screenshot("11-test-sender");
  });

  test("signs out", async () => {
    const page = h.page();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await h.screenshot("12-signed-out");
  });

  test("an account that is not a platform admin is told so, and sees no admin views", async () => {
    const user = await h.app().signUp();
    const page = h.page();
    await page.getByLabel("Email").fill(user.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText(`${user.email} is not a platform admin`).waitFor();
    // Its navigation holds what is its own (issue U.12: the inbox; AD 4: preferences and account), none of
    // the admin views.
    const links = await page.getByRole("navigation").getByRole("link").allTextContents();
    expect(links.map((text) => text.trim())).toEqual(["Inbox", "Preferences", "Account"]);
    await h.screenshot("13-not-an-admin");
  });

  test("the page ran under the service's Content-Security-Policy without errors", () => {
    const blocked = h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p));
    expect(blocked).toEqual([]);
  });
});
