// Four-eyes approval in a real Chromium (APPROVALS=required): admin A is offered no direct activation,
// only a change request from the cohort page; A sees it waiting for another admin (count in the
// navigation, Cancel instead of Approve); admin B compares both previews and approves it: applied, cohort
// active, and the list is empty. A second request whose impact changes before approval shows the difference
// and goes stale; a third, whose gates fail since, says why in words and is rejected with a comment. Every
// state is held to the console's bar at 1366 and 390 px (h.checkView: fits the screen, no axe-core violation).
import { describe, expect, test } from "vitest";
import { proRestrictionStatus, pros } from "../../db/schema/index.js";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const PASSING = { responseRate: 0.9, comparisonsDone: 60, legalSignoff: true };

describe.skipIf(!chromiumFound())("four-eyes approval", () => {
  const h = useConsole({ approvals: "required" });
  let adminA: TestUser;
  let adminB: TestUser;
  let cohortId = "";

  const page = () => h.page();
  const dialog = () => page().getByRole("dialog");
  const nav = () => page().getByRole("navigation", { name: "Sections" });
  const api = () => h.app().caller(adminA).restriction;
  /** A row of the comparison: its count when requested and now. */
  const counts = (label: string) =>
    page()
      .getByRole("row", { name: new RegExp(`^${label}`) })
      .locator("td .count")
      .allTextContents();

  /** A cohort of three registered pros with a passing gate check. */
  async function seedCohort(cohortNumber: number, proIds: string[]) {
    await h
      .app()
      .db.db.insert(pros)
      .values(proIds.map((id) => ({ id, name: `Pro ${id}` })));
    const cohort = await api().createCohort({ cohortNumber, proIds });
    await api().checkGates({ id: cohort.id, ...PASSING });
    return cohort.id;
  }

  async function switchTo(user: TestUser) {
    await page().getByRole("button", { name: "Sign out" }).click();
    await page().getByRole("heading", { name: "Sign in" }).waitFor();
    await h.signIn(user.email);
  }

  test("A is offered the request only, never a doomed Activate; the request is made from the cohort page", async () => {
    adminA = await h.app().signUp({ admin: true });
    adminB = await h.app().signUp({ admin: true });
    cohortId = await seedCohort(701, ["pro-a1", "pro-a2", "pro-a3"]);
    await h.signIn(adminA.email);
    await page().goto(`/console/cohorts/${cohortId}`);
    await page()
      .getByRole("heading", { level: 1, name: /Cohort 701/ })
      .waitFor();

    await page().getByRole("button", { name: "Preview and request activation…" }).click();
    await dialog().getByRole("heading", { name: "Request activation of cohort 701" }).waitFor();
    expect(await dialog().getByRole("button", { name: "Activate", exact: true }).count()).toBe(0);
    await dialog()
      .getByLabel(/^Reason/)
      .fill("gates passed on the 20th");
    await h.checkView("approvals-request-dialog", { viewport: true });
    await dialog().getByRole("button", { name: "Request approval" }).click();
    await dialog().waitFor({ state: "hidden" });
    await page().getByRole("status").filter({ hasText: "Activation of cohort 701 requested" }).waitFor();

    const history = page().getByRole("table", { name: "Change requests of cohort 701, newest first" });
    // The history refreshes after the request: wait for its row, then read it.
    const requestRow = history.getByRole("row").nth(1);
    await requestRow.waitFor();
    const cells = await requestRow.getByRole("cell").allTextContents();
    expect(cells.slice(1, 5)).toEqual(["Activation", "Pending", adminA.email, "gates passed on the 20th"]);
    // While it is pending the request button opens it instead of asking twice.
    await page().getByRole("link", { name: "Activation requested: waiting for approval" }).waitFor();
    expect(await page().getByRole("button", { name: "Preview and request activation…" }).count()).toBe(0);
    await h.checkView("approvals-cohort-history");
  });

  test("A sees the request waiting for another admin, with Cancel instead of Approve", async () => {
    await nav().getByRole("link", { name: "Approvals (1)" }).click();
    await page().getByRole("heading", { level: 1, name: "Pending approvals" }).waitFor();
    const row = page().getByRole("row", { name: /Cohort 701/ });
    await row.getByText("Waiting for another admin").waitFor();
    expect(await row.getByRole("cell").nth(1).textContent()).toBe("Activation");
    await h.checkView("approvals-list-requester");

    await row.getByRole("link", { name: /^Open your request/ }).click();
    await page()
      .getByRole("heading", { level: 1, name: /Activation of cohort 701/ })
      .waitFor();
    await page().getByRole("heading", { name: "Waiting for another admin" }).waitFor();
    await page().getByRole("button", { name: "Cancel request" }).waitFor();
    expect(
      await page()
        .getByRole("button", { name: /^Approve/ })
        .count(),
    ).toBe(0);
    expect(await page().getByRole("button", { name: "Reject" }).count()).toBe(0);
    await h.checkView("approvals-request-mine");
  });

  test("B compares both previews, needs a comment to reject, and approves: applied, cohort active", async () => {
    await switchTo(adminB);
    await nav().getByRole("link", { name: "Approvals (1)" }).click();
    const review = page().getByRole("link", { name: /^Review the activation of cohort 701/ });
    await review.waitFor();
    await h.checkView("approvals-list");
    await review.click();
    const compare = page().getByRole("table", { name: /when requested and now/ });
    await compare.getByRole("columnheader", { name: "When requested" }).waitFor();
    await compare.getByRole("columnheader", { name: "Now" }).waitFor();
    expect(await counts("Turn on")).toEqual(["3", "3"]);
    expect(await compare.getByText("changed", { exact: true }).count()).toBe(0);
    await page().getByText("No change since the request: approving applies exactly this.").waitFor();
    await h.checkView("approvals-review");

    await page().getByRole("button", { name: "Reject" }).click();
    await page().getByText("Write why you reject it").waitFor();
    expect(await page().getByLabel("Comment").getAttribute("aria-invalid")).toBe("true");
    expect(
      await page()
        .getByLabel("Comment")
        .evaluate((el) => el === document.activeElement),
    ).toBe(true);
    await h.checkView("approvals-reject-needs-comment");
    await page().getByLabel("Comment").fill("checked the preview");

    await page().getByRole("button", { name: "Approve and activate" }).click();
    const outcome = page().getByRole("status").filter({ hasText: "Applied" });
    await outcome.waitFor();
    expect(await outcome.textContent()).toBe(`Applied: approved by ${adminB.email}; cohort 701 is active.`);
    await page()
      .getByRole("heading", { level: 1, name: /Activation of cohort 701\s*Applied/ })
      .waitFor();
    await h.checkView("approvals-applied");
    await nav().getByRole("link", { name: "Approvals", exact: true }).click();
    await page().getByText("Nothing is waiting for approval.").waitFor();
    await h.checkView("approvals-empty");
    await page().goBack();

    await page().getByRole("link", { name: "Cohort 701" }).click();
    await page()
      .getByRole("heading", { level: 1, name: /Cohort 701\s*Active/ })
      .waitFor();
    const row = page()
      .getByRole("table", { name: /^Change requests of cohort 701/ })
      .getByRole("row")
      .nth(1);
    await row.getByText("Applied", { exact: true }).waitFor();
    const cells = await row.getByRole("cell").allTextContents();
    expect(cells[5]).toContain(adminB.email);
    expect(cells[6]).toBe("checked the preview");
    await h.checkView("approvals-cohort-history-decided");
    expect((await api().listCohorts()).find((c) => c.id === cohortId)?.status).toBe("active");
  });

  test("a request whose impact changed before approval shows the difference, and approving it is stale", async () => {
    const staleCohort = await seedCohort(702, ["pro-s1", "pro-s2", "pro-s3"]);
    const { changeRequest } = await api().createChangeRequest({ id: staleCohort, action: "activate", reason: "second batch" });
    // Switched on in between (per pro, with approvals required, that too takes a second admin: written here directly).
    await h.app().db.db.insert(proRestrictionStatus).values({ proId: "pro-s2", restrictionActive: true });

    await page().goto(`/console/approvals/${changeRequest.id}`);
    const changes = page().getByRole("list", { name: "Changes since the request" });
    await changes.waitFor();
    expect(await changes.getByRole("listitem").allTextContents()).toEqual(["− pro-s2 no longer turned on: it is on already"]);
    expect(await counts("Turn on")).toEqual(["3", "2"]);
    expect(await counts("Unchanged")).toEqual(["0", "1"]);
    const turnOnNow = page()
      .getByRole("row", { name: /^Turn on/ })
      .getByRole("cell")
      .nth(1);
    expect(await turnOnNow.getByText("changed", { exact: true }).count()).toBe(1);
    expect(
      await page()
        .getByRole("row", { name: /^Turn off/ })
        .getByText("changed", { exact: true })
        .count(),
    ).toBe(0);
    // Each id whole on its line (IdList).
    await turnOnNow.getByText("the 2 ids").click();
    expect(await turnOnNow.locator(".id-list .id").allTextContents()).toEqual(["pro-s1", "pro-s3"]);
    expect(await turnOnNow.locator(".id-list").textContent()).toBe("pro-s1, pro-s3");
    await nav().getByRole("link", { name: "Approvals (1)" }).waitFor();
    await h.checkView("approvals-changed");

    await page().getByRole("button", { name: "Approve and activate" }).click();
    const outcome = page().getByRole("status").filter({ hasText: "Stale" });
    await outcome.waitFor();
    // Plain words first; the service's own sentence in a smaller line under them.
    const [said, detail, next] = await outcome.getByRole("paragraph").allTextContents();
    expect(said).toBe("Stale: nothing was applied. Pros' flags changed between the request and the approval.");
    expect(detail).toBe(
      "The service said: The impact changed since the request was made: nothing was applied and the request is stale; request again",
    );
    expect(next).toBe("To go ahead, request the change again from cohort 702.");
    expect(await outcome.evaluate((el) => el === document.activeElement)).toBe(true);
    await h.checkView("approvals-stale");

    expect((await api().getChangeRequest({ id: changeRequest.id })).changeRequest.status).toBe("stale");
    expect((await api().listCohorts()).find((c) => c.id === staleCohort)?.status).toBe("pending");
  });

  test("a request whose gates fail since says so in words; approving is refused, and B rejects it", async () => {
    const blockedCohort = await seedCohort(703, ["pro-g1", "pro-g2"]);
    const { changeRequest } = await api().createChangeRequest({ id: blockedCohort, action: "activate", reason: "third batch" });
    await api().checkGates({ id: blockedCohort, ...PASSING, responseRate: 0.5 });

    await page().goto(`/console/approvals/${changeRequest.id}`);
    const blocked = page().getByRole("alert").filter({ hasText: "Activation is blocked now" });
    await blocked.waitFor();
    // Words first; the service's text (response_rate 0.5 < 0.6) only in the detail line.
    const [lead, detail] = await blocked.getByRole("paragraph").allTextContents();
    expect(lead).toContain("The response rate is 0.5, below the 0.6 it needs.");
    expect(lead).not.toContain("response_rate");
    expect(detail).toContain("response_rate 0.5 < 0.6");
    const gates = page()
      .getByRole("row", { name: /^Gates/ })
      .getByRole("cell");
    expect(await gates.first().textContent()).toBe("Passed");
    expect(await gates.nth(1).textContent()).toMatch(/^Blocked: The response rate is 0\.5, below the 0\.6 it needs\./);
    expect(await gates.nth(1).locator(".detail").textContent()).toBe("Activation blocked by unmet gates: response_rate 0.5 < 0.6");
    expect(await gates.nth(1).getByText("changed", { exact: true }).count()).toBe(1);
    expect(await page().getByText("No change since the request").count()).toBe(0);

    await page().getByRole("button", { name: "Approve and activate" }).click();
    const refused = page().getByRole("alert").filter({ hasText: "Not approved" });
    await refused.waitFor();
    expect(await refused.textContent()).toContain("The response rate is 0.5, below the 0.6 it needs.");
    expect((await api().getChangeRequest({ id: changeRequest.id })).changeRequest.status).toBe("pending");
    await h.checkView("approvals-blocked");

    await page().getByLabel("Comment").fill("the response rate dropped: check the gates again first");
    await page().getByRole("button", { name: "Reject" }).click();
    const outcome = page().getByRole("status").filter({ hasText: "Rejected" });
    await outcome.waitFor();
    expect(await outcome.getByRole("paragraph").first().textContent()).toBe(
      `Rejected: by ${adminB.email}: the response rate dropped: check the gates again first`,
    );
    await h.checkView("approvals-rejected");
    expect((await api().getChangeRequest({ id: changeRequest.id })).changeRequest.status).toBe("rejected");
  });

  test("no page errors", () => {
    expect(h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p))).toEqual([]);
  });
});
