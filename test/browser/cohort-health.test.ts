// What an operator sees of a cohort after the fact (issue Q, items 2, 3, 4, 8): an active cohort whose pros
// another cohort's rollback switched off says so in the list and on its page; a gate check run before the
// cohort's rollback is marked as such, in the activation dialog too; unknown pros are named in the dialog;
// gate messages lead with words; the pro lookup tells an unknown pro from one never set and follows Back.
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("cohort health in the console", () => {
  const h = useConsole();
  let admin: TestUser;
  const ids = { seven: "", eight: "", nine: "" };
  const dialog = () => h.page().getByRole("dialog");
  const openCohort = async (n: number) => {
    const page = h.page();
    await page.getByRole("navigation").getByRole("link", { name: "Cohorts", exact: true }).click();
    await page.getByRole("link", { name: `Cohort ${n}`, exact: true }).click();
    await page.getByRole("heading", { name: new RegExp(`^Cohort ${n}\\b`) }).waitFor();
  };

  test("the cohort list says how much of each active cohort is restricted now, and what switched the rest off", async () => {
    admin = await h.app().signUp({ admin: true, name: "Olivia Operator" });
    const known = Array.from({ length: 8 }, (_, i) => `pro-c00${i + 1}`);
    await h
      .app()
      .db.db.insert(pros)
      .values(known.map((id) => ({ id, name: id })));
    const api = h.app().caller(admin).restriction;
    const active = async (cohortNumber: number, proIds: string[]) => {
      const cohort = await api.createCohort({ cohortNumber, proIds });
      await api.checkGates({ id: cohort.id, responseRate: 0.9, comparisonsDone: 80, legalSignoff: true });
      return api.activateCohort({ id: cohort.id });
    };
    ids.seven = (await active(7, known.slice(0, 5))).id; // pro-c001…c005
    ids.eight = (await active(8, known.slice(2, 8))).id; // pro-c003…c008: shares 3 pros with cohort 7
    await api.rollbackCohort({ id: ids.seven, reason: "complaints from pros" });
    await api.rollbackPro({ proId: "pro-c008" });

    const page = h.page();
    await h.signIn(admin.email);
    const row = page.getByRole("row", { name: /Cohort 8/ });
    await row.getByText("2 of 6").waitFor();
    expect(await row.textContent()).toContain("4 pros off: cohort 7's rollback (3), a per-pro rollback (1)");
    expect(await page.getByRole("row", { name: /Cohort 7/ }).textContent()).toContain("Rolled back");
    await h.checkView("health-01-cohort-list");
  });

  test("the cohort page names each pro that is off, the change that did it, when, by whom and why", async () => {
    const page = h.page();
    await page.getByRole("link", { name: "Cohort 8", exact: true }).click();
    const card = page.getByRole("region", { name: "2 of 6 pros restricted now" });
    await card.waitFor();
    const line = (proId: string) => card.getByRole("row", { name: new RegExp(proId) });
    expect(await line("pro-c003").textContent()).toMatch(/cohort 7's rollback.*complaints from pros/);
    expect(await line("pro-c008").textContent()).toMatch(/a per-pro rollback/);
    expect(await line("pro-c008").textContent()).toContain(admin.email);
    expect(await card.getByRole("row").count()).toBe(5); // the head and 4 pros
    await h.checkView("health-02-cohort-coverage");

    await line("pro-c003").getByRole("link", { name: "cohort 7's rollback" }).click();
    await page.getByRole("heading", { name: /^Cohort 7\b/ }).waitFor();
  });

  test("a rolled-back cohort's gate check is shown as older than its rollback, in the page and the activation dialog", async () => {
    const page = h.page();
    await page.getByText("before the cohort's rollback").waitFor();
    await page.getByRole("button", { name: "Preview activation…" }).click();
    const warning = dialog().getByRole("note");
    await warning.waitFor();
    expect(await warning.textContent()).toMatch(/before this cohort was rolled back .*complaints from pros.*run a new gate check/);
    await h.checkView("health-03-reactivation-dialog", { viewport: true });
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "hidden" });

    await page.getByLabel("Response rate").fill("0.8");
    await page.getByLabel("Comparisons done").fill("60");
    await page.getByLabel("Legal has signed the rollout off").check();
    await page.getByRole("button", { name: "Run gate check" }).click();
    await page.getByText("All gates met: the cohort may be activated.").waitFor();
    await page.getByText("before the cohort's rollback").waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Preview activation…" }).click();
    await dialog()
      .getByRole("row", { name: /^Turn on/ })
      .waitFor();
    expect(await dialog().getByRole("note").count()).toBe(0);
    await page.keyboard.press("Escape");
  });

  test("a failing gate check leads with words and keeps the service's text as a detail", async () => {
    const page = h.page();
    await page.getByLabel("Response rate").fill("0.5");
    await page.getByLabel("Comparisons done").fill("12");
    await page.getByLabel("Legal has signed the rollout off").uncheck();
    await page.getByRole("button", { name: "Run gate check" }).click();
    const status = page.getByRole("status").filter({ hasText: "Gates not met." });
    await status.waitFor();
    expect(await status.textContent()).toContain(
      "The response rate is 0.5, below the 0.6 it needs; 12 comparisons are done, fewer than the 50 it needs; legal has not signed the rollout off.",
    );
    expect(await status.locator(".detail").textContent()).toBe(
      "Service: response_rate 0.5 < 0.6; comparisons_done 12 < 50; legal_signoff missing",
    );
    await h.checkView("health-04-failed-gate-check");
  });

  test("the activation dialog names the cohort's ids that are not known pros, without blocking", async () => {
    const api = h.app().caller(admin).restriction;
    const cohort = await api.createCohort({ cohortNumber: 9, proIds: ["pro-c001", "pro-9999", "pro-typo"] });
    await api.checkGates({ id: cohort.id, responseRate: 0.9, comparisonsDone: 80, legalSignoff: true });
    ids.nine = cohort.id;
    await openCohort(9);
    const page = h.page();
    await page.getByRole("button", { name: "Preview activation…" }).click();
    const warning = dialog().getByText(/2 ids of this cohort are not known pros/);
    await warning.waitFor();
    expect(await dialog().getByLabel("Ids that are not known pros").textContent()).toBe("pro-9999, pro-typo");
    expect(await dialog().getByRole("button", { name: "Activate" }).isEnabled()).toBe(true);
    await h.checkView("health-05-unknown-pros-dialog", { viewport: true });
    await page.keyboard.press("Escape");
  });

  test("the pro lookup tells an unknown pro from a known one never set, and Back brings back the id looked up before", async () => {
    await h.app().db.db.insert(pros).values({ id: "pro-never-set", name: "Never set" });
    const page = h.page();
    await page.getByRole("link", { name: "Pro lookup" }).click();
    const box = page.getByLabel("Pro id");
    await box.fill("pro-9999");
    await page.getByRole("button", { name: "Look up" }).click();
    await page.getByText("No status recorded; not a known pro").waitFor();
    await h.checkView("health-06-unknown-pro");

    await box.fill("pro-never-set");
    await page.getByRole("button", { name: "Look up" }).click();
    await page.getByText("No status recorded: the restriction was never set for this pro.").waitFor();

    await page.goBack();
    await page.getByText("No status recorded; not a known pro").waitFor();
    expect(await box.inputValue()).toBe("pro-9999");
    await page.goBack();
    await page.getByRole("heading", { name: /^Restricted now/ }).waitFor();
    expect(await box.inputValue()).toBe("");
  });

  test("a pro's history fits a phone and links to all of the pro's audit events", async () => {
    const page = h.page();
    await page.goto("/console/pros/pro-c003");
    const history = page.getByRole("region", { name: "History" });
    await history.getByRole("row").nth(3).waitFor();
    await h.checkView("health-07-pro-history");
    await history
      .getByRole("row")
      .nth(1)
      .getByRole("link", { name: /^[0-9a-f]{8}$/ })
      .click();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    expect(new URL(page.url()).search).toBe("?proId=pro-c003");
  });

  test("the page ran without errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});
