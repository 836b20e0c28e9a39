// Two stumbles of an operator's day (issue U.10, U.11). A pasted cohort with repeated ids is fixed with one
// button that drops the repeats and says how many went, keeping the table's header and other columns; the
// cohort is created with each id once. Pro lookup says "not a known pro" for an id missing from the pros
// table whether or not a cohort wrote a status for it. Every state is held to the console's bar at 1366 and
// 390 px (h.checkView).
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

const PASSING = { responseRate: 0.9, comparisonsDone: 60, legalSignoff: true };

describe.skipIf(!chromiumFound())("repeated ids and unknown pros", () => {
  const h = useConsole();
  let admin: TestUser;
  const page = () => h.page();
  const idsBox = () => page().getByLabel("Pro ids", { exact: true });

  test("a paste with repeats offers to drop them, says how many went, and creates the cohort with each id once", async () => {
    admin = await h.app().signUp({ admin: true });
    await h.signIn(admin.email);
    await page().getByRole("heading", { name: "New cohort" }).waitFor();
    await page().getByLabel("Cohort number").fill("960");
    await idsBox().fill("pro_id\tname\npro-r1\tAnn\npro-r2\tBo\npro-r1\tAnn again\npro-r3\tCy\npro-r3\tCy\npro-r3\tCy");
    await page().getByText("Remove the repeated ids (2).").waitFor();
    await page().getByText("Repeated: pro-r1, pro-r3").waitFor();
    const drop = page().getByRole("button", { name: "Keep each id once (drop 3 repeats)" });
    expect(
      await page()
        .getByRole("button", { name: /^Create cohort/ })
        .isDisabled(),
    ).toBe(true);
    await h.checkView("repeats-offered");

    await drop.click();
    const said = page().getByRole("status").filter({ hasText: "Dropped 3 repeats of pro-r1, pro-r3: each id is listed once now." });
    await said.waitFor();
    expect(await said.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await drop.count()).toBe(0);
    // The table keeps its header and its other column: only the later rows of a repeated id went.
    expect(await idsBox().inputValue()).toBe("pro_id\tname\npro-r1\tAnn\npro-r2\tBo\npro-r3\tCy");
    await page().getByText("Ids to send: pro-r1, pro-r2, pro-r3", { exact: true }).waitFor();
    await page()
      .getByText(/^3 pro ids — ready to create/)
      .waitFor();
    await h.checkView("repeats-dropped");

    // Any later edit makes the note stale: it goes.
    await idsBox().press("End");
    await idsBox().pressSequentially("\npro-r4\tDi");
    await said.waitFor({ state: "detached" });
    await page().getByRole("button", { name: "Create cohort 960" }).click();
    await page()
      .getByRole("heading", { level: 1, name: /Cohort 960/ })
      .waitFor();
    const created = (await h.app().caller(admin).restriction.listCohorts()).find((c) => c.cohortNumber === 960);
    expect(created?.proIds).toEqual(["pro-r1", "pro-r2", "pro-r3", "pro-r4"]);
  });

  test("an unknown pro with a status says it is not a known pro; a known one does not, an unknown one without a status still does", async () => {
    await h.app().db.db.insert(pros).values({ id: "pro-known", name: "Known Pro" });
    const api = h.app().caller(admin).restriction;
    const cohort = await api.createCohort({ cohortNumber: 961, proIds: ["pro-known", "pro-ghost"] });
    await api.checkGates({ id: cohort.id, ...PASSING });
    await api.activateCohort({ id: cohort.id });
    const status = page().getByRole("region", { name: /^pro-/ });

    await page().goto("/console/pros/pro-ghost");
    await page()
      .getByRole("heading", { name: /^pro-ghost\s*Restricted\s*Not a known pro$/ })
      .waitFor();
    await status
      .getByRole("note")
      .filter({ hasText: "Not a known pro: the id is not in the pros table, yet a status is recorded" })
      .waitFor();
    await status.getByRole("link", { name: "cohort 961" }).waitFor();
    await h.checkView("pro-unknown-with-status");

    // The page asks whether the id is a known pro (a new-cohort preview of it): its answer is waited for.
    const known = page().waitForResponse((r) => r.url().includes("restriction.previewNewCohort"));
    await page().goto("/console/pros/pro-known");
    await page()
      .getByRole("heading", { name: /^pro-known\s*Restricted$/ })
      .waitFor();
    await known;
    expect(await status.getByText(/not a known pro/i).count()).toBe(0);

    await page().goto("/console/pros/pro-nobody");
    await status.getByText("No status recorded; not a known pro").waitFor();
    expect(
      await page()
        .getByRole("heading", { name: /Not a known pro/ })
        .textContent(),
    ).toMatch(/^pro-nobody\s*Not restricted\s*Not a known pro\s*$/);
  });
});
