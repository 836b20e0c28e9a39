// The rollout dialogs lead with what will really happen, in each mode of the service (issue U.7). With
// APPROVALS=required the cohort page offers the activation as a request only: no Activate that the service
// would answer 409, and nothing is sent that it refuses. The emergency rollback is one path: the reason is
// labelled required with the service's rule, counted, and checked before sending; nothing nudges towards an
// approval. With approvals off: Activate, and a rollback whose reason is optional. Each dialog is held to
// the console's bar at 1366 and 390 px (h.checkView).
import type { Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { type ConsoleHarness, useConsole } from "./harness.js";

const PASSING = { responseRate: 0.9, comparisonsDone: 60, legalSignoff: true };

/** The tRPC procedures the page called (a batch names each), and every answer of 400 or more. */
function watchCalls(page: Page) {
  const calls: string[] = [];
  const refusals: string[] = [];
  page.on("request", (request) => {
    const match = /\/api\/trpc\/([^?]+)/.exec(request.url());
    if (match && request.method() === "POST") calls.push(...decodeURIComponent(match[1]!).split(","));
  });
  page.on("response", (response) => {
    if (response.status() >= 400) refusals.push(`${response.status()} ${response.url()}`);
  });
  return { calls, refusals };
}

function helpers(h: ConsoleHarness) {
  const page = () => h.page();
  const dialog = () => page().getByRole("dialog");
  /** The text of the dialog's description (aria-describedby): what it says first. */
  const description = () =>
    dialog().evaluate((el) => document.getElementById(el.getAttribute("aria-describedby") ?? "")?.textContent ?? "(none)");
  const openCohort = async (id: string, number: number) => {
    await page().goto(`/console/cohorts/${id}`);
    await page()
      .getByRole("heading", { level: 1, name: new RegExp(`Cohort ${number}`) })
      .waitFor();
    await page().getByRole("heading", { name: "Rollout" }).waitFor();
  };
  const dialogButtons = async () => (await dialog().getByRole("button").allTextContents()).map((t) => t.trim());
  return { page, dialog, description, openCohort, dialogButtons };
}

describe.skipIf(!chromiumFound())("rollout dialogs with approvals required", () => {
  const h = useConsole({ approvals: "required" });
  const { page, dialog, description, openCohort, dialogButtons } = helpers(h);
  let adminA: TestUser;
  let adminB: TestUser;
  let watched: ReturnType<typeof watchCalls>;

  test("activation is offered as a request only: its dialog says nothing changes yet, and there is no Activate", async () => {
    adminA = await h.app().signUp({ admin: true });
    adminB = await h.app().signUp({ admin: true });
    const api = h.app().caller(adminA).restriction;
    const cohort = await api.createCohort({ cohortNumber: 801, proIds: ["pro-d1", "pro-d2"] });
    await api.checkGates({ id: cohort.id, ...PASSING });
    await h.signIn(adminA.email);
    watched = watchCalls(page());
    await openCohort(cohort.id, 801);

    await page().getByText("Approvals are required here").waitFor();
    expect(await page().getByRole("button", { name: "Preview activation…" }).count()).toBe(0);
    await page().getByRole("button", { name: "Preview and request activation…" }).click();
    await dialog().getByRole("heading", { name: "Request activation of cohort 801" }).waitFor();
    await dialog()
      .getByRole("row", { name: /^Turn on/ })
      .waitFor();
    expect(await description()).toMatch(/^Nothing changes yet: activations need a second admin here/);
    expect(await dialogButtons()).toEqual(["Cancel", "Request approval"]);
    await dialog()
      .getByLabel(/^Reason \(optional, shown to the approving admin\)/)
      .fill("gates passed");
    await h.checkView("dialogs-request-activation", { viewport: true });

    await dialog().getByRole("button", { name: "Request approval" }).click();
    await page().getByRole("status").filter({ hasText: "Activation of cohort 801 requested" }).waitFor();
    expect(watched.calls).not.toContain("restriction.activateCohort");
    expect(watched.refusals).toEqual([]);
    const { changeRequests } = await api.listChangeRequests({ cohortId: cohort.id });
    expect(changeRequests.map((r) => [r.action, r.status, r.reason])).toEqual([["activate", "pending", "gates passed"]]);
  });

  test("the emergency rollback is one path: a required reason, counted and checked before sending, no word of approval requests", async () => {
    const api = h.app().caller(adminA).restriction;
    const cohort = await api.createCohort({ cohortNumber: 802, proIds: ["pro-e1", "pro-e2"] });
    await api.checkGates({ id: cohort.id, ...PASSING });
    const { changeRequest } = await api.createChangeRequest({ id: cohort.id, action: "activate", reason: null });
    await h.app().caller(adminB).restriction.approveChangeRequest({ id: changeRequest.id, comment: null });
    await openCohort(cohort.id, 802);

    expect(
      await page()
        .getByRole("button", { name: /request/i })
        .count(),
    ).toBe(0);
    await page().getByRole("button", { name: "Preview rollback…" }).click();
    await dialog().getByRole("heading", { name: "Roll back cohort 802?" }).waitFor();
    expect(await description()).toMatch(/off at once\. No approval is needed for a rollback: a written reason is/);
    expect(await dialogButtons()).toEqual(["Cancel", "Roll back"]);
    expect(
      await dialog()
        .getByText(/request/i)
        .count(),
    ).toBe(0);

    const reason = dialog().getByLabel(/^Reason \(required, at least 10 letters, digits or punctuation marks/);
    expect(await reason.getAttribute("required")).not.toBeNull();
    await reason.fill("too   few");
    await dialog().getByText("6 of at least 10 counted; 9 / 500 characters").waitFor();
    await dialog().getByRole("button", { name: "Roll back" }).click();
    await dialog().getByText("At least 10 letters, digits or punctuation marks: 6 so far (spaces do not count).").waitFor();
    expect(await reason.getAttribute("aria-invalid")).toBe("true");
    expect(await reason.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(watched.calls).not.toContain("restriction.rollbackCohort");
    await h.checkView("dialogs-emergency-rollback-short", { viewport: true });

    await reason.fill("complaints from pros");
    expect(await reason.getAttribute("aria-invalid")).toBe("false");
    await dialog().getByRole("button", { name: "Roll back" }).click();
    await page().getByRole("status").filter({ hasText: "Cohort 802 rolled back." }).waitFor();
    expect(watched.refusals).toEqual([]);
    const after = (await api.listCohorts()).find((c) => c.id === cohort.id);
    expect(after).toMatchObject({ status: "rolled_back", rollbackReason: "complaints from pros" });
  });
});

describe.skipIf(!chromiumFound())("rollout dialogs with approvals off", () => {
  const h = useConsole();
  const { page, dialog, description, openCohort, dialogButtons } = helpers(h);
  let admin: TestUser;

  test("activation is direct: Activate, said to switch the restriction on at once, and no request offered", async () => {
    admin = await h.app().signUp({ admin: true });
    const api = h.app().caller(admin).restriction;
    const cohort = await api.createCohort({ cohortNumber: 811, proIds: ["pro-f1"] });
    await api.checkGates({ id: cohort.id, ...PASSING });
    await h.signIn(admin.email);
    await openCohort(cohort.id, 811);

    expect(
      await page()
        .getByRole("button", { name: /request/i })
        .count(),
    ).toBe(0);
    await page().getByRole("button", { name: "Preview activation…" }).click();
    await dialog().getByRole("heading", { name: "Activate cohort 811?" }).waitFor();
    await dialog()
      .getByRole("row", { name: /^Turn on/ })
      .waitFor();
    expect(await description()).toBe("Activating switches these pros' restriction on at once.");
    expect(await dialogButtons()).toEqual(["Cancel", "Activate"]);
    expect(
      await dialog()
        .getByLabel(/^Reason/)
        .count(),
    ).toBe(0);
    await h.checkView("dialogs-activate", { viewport: true });
    await dialog().getByRole("button", { name: "Activate" }).click();
    await page().getByRole("status").filter({ hasText: "Cohort 811 activated." }).waitFor();
  });

  test("a rollback's reason is optional, and said so: an empty one is sent", async () => {
    await page().getByRole("button", { name: "Preview rollback…" }).click();
    await dialog().getByRole("heading", { name: "Roll back cohort 811?" }).waitFor();
    expect(await description()).toBe("Rolling back switches these pros' restriction off at once.");
    const reason = dialog().getByLabel("Reason (optional; kept with the cohort and in the audit log)");
    expect(await reason.getAttribute("required")).toBeNull();
    await dialog().getByText("0 / 500 characters").waitFor();
    await h.checkView("dialogs-rollback", { viewport: true });
    await dialog().getByRole("button", { name: "Roll back" }).click();
    await page().getByRole("status").filter({ hasText: "Cohort 811 rolled back." }).waitFor();
    const cohort = (await h.app().caller(admin).restriction.listCohorts()).find((c) => c.cohortNumber === 811);
    expect(cohort).toMatchObject({ status: "rolled_back", rollbackReason: null });
  });
});
