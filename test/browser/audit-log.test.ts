// The audit log answers an operator's everyday questions in a real Chromium (issue Q.5): what happened to
// this pro, cohort-made changes included; what did this admin do, by email, impersonated acts included;
// what changed, in words, with the raw record in a box of its own. Filters live in the address, exactly
// (an id holding `%41` stays `%41`), and a cohort made after the page loaded is still named by its number.
// Every state is checked at 1366 and 390 px wide.
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import { createContextInner } from "../../server/context.js";
import { createCaller } from "../../server/routers/index.js";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const PASSING = { responseRate: 0.72, comparisonsDone: 64, legalSignoff: true };
/** A pro id with every character an address mangles: wouter's decodeURI turned its `%41` into `A`. */
const TRICKY = "pro=1/x%41y&z?#";

describe.skipIf(!chromiumFound())("the audit log", () => {
  const h = useConsole();
  let admin: TestUser;
  let approver: TestUser;
  let impersonated: TestUser;

  const page = () => h.page();
  const events = () => page().getByRole("region", { name: "Events" });
  /** The events' rows on screen, each as its text. */
  const rowTexts = () =>
    events()
      .getByRole("row")
      .filter({ has: page().getByRole("cell") })
      .allTextContents();
  const pageWidth = () => page().evaluate(() => document.documentElement.scrollWidth);

  /** Fills the filter form afresh and applies it; resolves once the address holds the filter. */
  async function applyFilters(fields: { proId?: string; actor?: string; action?: string }) {
    await page().getByRole("button", { name: "Clear" }).click();
    await page().waitForURL((url) => url.search === "");
    if (fields.proId !== undefined) await page().getByLabel("Pro id").fill(fields.proId);
    if (fields.actor !== undefined) await page().getByLabel("Actor (email or user id)").fill(fields.actor);
    if (fields.action !== undefined) await page().getByLabel("Action").selectOption(fields.action);
    await page().getByRole("button", { name: "Apply filters" }).click();
    await page().waitForURL((url) => url.search !== "");
  }

  /**
   * Cohort 41 (pro-a1, pro-a2) activated then rolled back; cohort 42 (pro-a2, pro-a3) activated through an
   * approved change request; pro-a1 and the tricky pro restricted per pro; pro-a3 rolled back per pro by an
   * admin impersonating another.
   */
  async function seed() {
    admin = await h.app().signUp({ admin: true, name: "Olivia Operator" });
    approver = await h.app().signUp({ admin: true, name: "Avery Approver" });
    impersonated = await h.app().signUp({ admin: true, name: "Ivy Impersonated" });
    await h
      .app()
      .db.db.insert(pros)
      .values(["pro-a1", "pro-a2", "pro-a3", TRICKY].map((id) => ({ id, name: `Pro ${id}` })));
    const api = h.app().caller(admin).restriction;
    const first = await api.createCohort({ cohortNumber: 41, proIds: ["pro-a1", "pro-a2"] });
    await api.checkGates({ id: first.id, ...PASSING });
    await api.activateCohort({ id: first.id });
    await api.rollbackCohort({ id: first.id, reason: "complaints from pros in the north region" });
    const second = await api.createCohort({ cohortNumber: 42, proIds: ["pro-a2", "pro-a3"] });
    await api.checkGates({ id: second.id, ...PASSING });
    const { changeRequest } = await api.createChangeRequest({ id: second.id, action: "activate", reason: "gates passed" });
    await h.app().caller(approver).restriction.approveChangeRequest({ id: changeRequest.id, comment: "checked the preview" });
    await api.activatePro({ proId: "pro-a1" });
    await api.activatePro({ proId: TRICKY });
    const session = { id: "impersonation", expiresAt: new Date(Date.now() + 60_000), impersonatedBy: { id: admin.id, email: admin.email } };
    const asImpersonated = createCaller(createContextInner({ db: h.app().db.db, push: h.app().push }, { user: impersonated, session }));
    await asImpersonated.restriction.rollbackPro({ proId: "pro-a3" });
  }

  test("lists every event, newest first, with the action in words and what changed", async () => {
    await seed();
    await h.signIn(admin.email);
    await page().getByRole("link", { name: "Audit log" }).click();
    await page().getByText("12 shown, the last page.").waitFor();
    const [newest] = await rowTexts();
    expect(newest).toContain(`${impersonated.email}impersonated by ${admin.email}`);
    expect(newest).toContain("Pro's restriction liftedpro.rollback");
    expect(newest).toContain("restriction: on → off");
    expect(newest).toContain("was set by cohort 42, now per pro");
    await h.checkView("audit-01-all");
  });

  test("filtering by pro finds its own changes and the cohort changes that set its flag", async () => {
    await applyFilters({ proId: "pro-a1" });
    await page().getByText("3 shown, the last page.").waitFor();
    expect(page().url()).toMatch(/\/console\/audit\?proId=pro-a1$/);
    const [own, rollback, activation] = await rowTexts();
    expect(own).toMatch(/Pro restrictedpro\.activate.*pro pro-a1.*restriction: off → on/);
    expect(rollback).toMatch(/Cohort rolled backcohort\.rollback.*cohort 41.*complaints from pros.*status: active → rolled back/);
    expect(activation).toMatch(/Cohort activatedcohort\.activate.*cohort 41.*status: pending → active.*activated: — → /);
    const history = page().getByRole("link", { name: "Open pro-a1's flag history" });
    expect(await history.getAttribute("href")).toBe("/console/pros/pro-a1");
    await h.checkView("audit-02-by-pro");

    // Cohort 42 switched pro-a2 too: an approval applied it, and the log says whose request it was.
    await applyFilters({ proId: "pro-a2" });
    await page().getByRole("link", { name: "Open pro-a2's flag history" }).waitFor();
    await page().getByText("3 shown, the last page.").waitFor();
    const [approved] = await rowTexts();
    expect(approved).toMatch(/Cohort activated.*cohort 42/);
    expect(approved).toMatch(new RegExp(`applied by approving change request \\w{8}, requested by ${admin.email}`));
    expect(approved).toContain(approver.email);
    await events().getByRole("link", { name: "Open the change request" }).waitFor();
  });

  test("the actor is found by email, in any case, and the admin's acts under impersonation with them", async () => {
    await applyFilters({ actor: admin.email.toUpperCase() });
    await page().getByText("10 shown, the last page.").waitFor();
    expect(new URL(page().url()).searchParams.get("actorEmail")).toBe(admin.email.toUpperCase());
    const texts = await rowTexts();
    expect(texts[0]).toContain(`${impersonated.email}impersonated by ${admin.email}`);
    // The approval was the approver's act: not the requester's.
    expect(texts.some((text) => text.includes("Change request approved"))).toBe(false);

    await applyFilters({ actor: approver.id });
    await page().getByText("2 shown, the last page.").waitFor();
    expect(new URL(page().url()).searchParams.get("actorId")).toBe(approver.id);
    expect(await rowTexts()).toEqual([
      expect.stringMatching(/Change request approved.*activate cohort 42.*status: pending → applied/),
      expect.stringMatching(/Cohort activated.*cohort 42/),
    ]);
    await h.checkView("audit-03-by-actor");
  });

  test("an id with characters an address mangles goes into the address and comes back exactly", async () => {
    await applyFilters({ proId: TRICKY });
    await page().getByText("1 shown, the last page.").waitFor();
    expect(new URL(page().url()).searchParams.get("proId")).toBe(TRICKY);
    expect(await page().getByLabel("Pro id").inputValue()).toBe(TRICKY);
    expect((await rowTexts())[0]).toContain(`pro ${TRICKY}`);
    const history = page().getByRole("link", { name: `Open ${TRICKY}'s flag history` });
    expect(await history.getAttribute("href")).toBe(`/console/pros/${encodeURIComponent(TRICKY)}`);

    // The address opened as a link: the same filter, the same event.
    await page().reload();
    await page().getByText("1 shown, the last page.").waitFor();
    expect(await page().getByLabel("Pro id").inputValue()).toBe(TRICKY);
  });

  test("a cohort made after the page loaded is named by its number", async () => {
    await applyFilters({ action: "cohort.check_gates" });
    await page().getByText("2 shown, the last page.").waitFor();
    // Made elsewhere (the API, another tab): the console's list of cohorts does not have it yet.
    const api = h.app().caller(admin).restriction;
    const late = await api.createCohort({ cohortNumber: 43, proIds: ["pro-a3"] });
    await api.checkGates({ id: late.id, responseRate: 0.4, comparisonsDone: 10, legalSignoff: false });

    // Its creation's record is the cohort itself, number included.
    await applyFilters({ action: "cohort.create" });
    const created = events().getByRole("row").filter({ hasText: "created with 1 pro (pro-a3)" });
    await created.getByRole("link", { name: "cohort 43" }).waitFor();

    // A gate check's record names its cohort by id only: the list of cohorts is fetched again to name it.
    await applyFilters({ action: "cohort.check_gates" });
    const check = events().getByRole("row").filter({ hasText: "blocked: the response rate is 0.4, below the 0.6 it needs" });
    await check.getByRole("link", { name: "cohort 43" }).waitFor();
    expect(await check.textContent()).toContain(
      "response rate 0.4, comparisons 10, communication log live yes, legal sign-off no → blocked: the response rate is 0.4, below the 0.6 it needs",
    );
    await page().getByText("3 shown, the last page.").waitFor();
  });

  test("the raw record opens in a box that scrolls on its own, never widening the page", async () => {
    await applyFilters({ action: "cohort.rollback" });
    await page().getByText("1 shown, the last page.").waitFor();
    await events().getByText("raw record").click();
    const box = events().getByRole("textbox", { name: "Raw record" });
    expect(await box.inputValue()).toContain('"rollbackReason": "complaints from pros in the north region"');
    await h.checkView("audit-04-raw-record");

    await page().setViewportSize({ width: 390, height: 844 });
    try {
      const scrolls = await box.evaluate((el) => ({ overflowX: getComputedStyle(el).overflowX, wider: el.scrollWidth > el.clientWidth }));
      expect(scrolls).toEqual({ overflowX: "auto", wider: true });
      expect(await pageWidth()).toBe(390);
    } finally {
      await page().setViewportSize({ width: 1366, height: 860 });
    }
  });

  test("a filter that matches nothing says so", async () => {
    await applyFilters({ proId: "pro-never-changed" });
    await page().getByText("No event matches these filters.").waitFor();
    await page().getByRole("link", { name: "Open pro-never-changed's flag history" }).waitFor();
    await h.checkView("audit-05-none");
    expect(h.pageProblems).toEqual([]);
  });
});
