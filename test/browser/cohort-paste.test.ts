// The new-cohort form in a real Chromium, as an operator fills it: an empty form is not an error; what is
// pasted into the box or uploaded as a file (a column, a line, a spreadsheet's rows, quotes, a header, CRLF,
// a byte-order mark) becomes exactly the ids shown and then created; the operator picks the id column of a
// table; the service's check names unknown pros and pros already in an active cohort without blocking, and a
// taken number at once; a refusal goes as soon as the operator edits. Every state is held to the console's
// bar at 1366 and 390 px (h.checkView).
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

/** What operators paste or upload, and the ids the form sends. */
const LISTS = [
  { what: "a spreadsheet's two columns", text: "pro-0200\tAlice\npro-0201\tBob\n", ids: ["pro-0200", "pro-0201"] },
  { what: "a CSV with a pro_id header", text: "pro_id,name\npro-1,Ann\npro-2,Bo\n", ids: ["pro-1", "pro-2"] },
  { what: "a quoted comma inside an id", text: '"pro,3"\npro-4\n', ids: ["pro,3", "pro-4"] },
  { what: "a Pro IDs header", text: "Pro IDs\npro-1\npro-2\n", ids: ["pro-1", "pro-2"] },
  { what: "an id header", text: "id\npro-1\n", ids: ["pro-1"] },
  { what: "semicolons, a name holding a comma", text: "pro_id;name\npro-1;Smith, Ann\n", ids: ["pro-1"] },
  { what: "one column, blank lines and trailing spaces", text: "pro-1  \n\npro-2\n  pro-3\n", ids: ["pro-1", "pro-2", "pro-3"] },
  { what: "one line, comma separated", text: "pro-1, pro-2", ids: ["pro-1", "pro-2"] },
  { what: "CRLF and a byte-order mark", text: "\uFEFFproId\r\npro-1\r\npro-2\r\n", ids: ["pro-1", "pro-2"] },
];

describe.skipIf(!chromiumFound())("new cohort from pasted or uploaded ids", () => {
  const h = useConsole();
  let admin: TestUser;

  const page = () => h.page();
  const idsBox = () => page().getByLabel("Pro ids", { exact: true });
  const upload = () => page().getByLabel("Or upload a CSV file");
  const createButton = () => page().getByRole("button", { name: /^Create cohort/ });
  /** The line that shows the ids the form will send. */
  const toSend = (ids: string[]) => page().getByText(`Ids to send: ${ids.join(", ")}`, { exact: true });
  const summary = (count: number, from = "") =>
    page().getByText(new RegExp(`^${count} pro ids?${from ? ` from ${from}` : ""} — ready to create`));
  const cohortsPage = async () => {
    await page().getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Cohorts", exact: true }).click();
    await page().getByRole("heading", { name: "New cohort" }).waitFor();
  };
  const createdProIds = async (cohortNumber: number) =>
    (await h.app().caller(admin).restriction.listCohorts()).find((c) => c.cohortNumber === cohortNumber)?.proIds;

  test("an empty form is only empty: no red problem, a neutral hint, the button disabled", async () => {
    admin = await h.app().signUp({ admin: true });
    // Known pros; cohort 900, active, already holds pro-1.
    await h
      .app()
      .db.db.insert(pros)
      .values(["pro-1", "pro-2", "pro-3", "pro-4"].map((id) => ({ id, name: `Pro ${id}` })));
    const api = h.app().caller(admin).restriction;
    const other = await api.createCohort({ cohortNumber: 900, proIds: ["pro-1"] });
    await api.checkGates({ id: other.id, responseRate: 0.9, comparisonsDone: 80, legalSignoff: true });
    await api.activateCohort({ id: other.id });

    await h.signIn(admin.email);
    await page().getByText("No pro ids yet").waitFor();
    expect(await page().getByText("List at least 1 pro id").count()).toBe(0);
    expect(await createButton().isDisabled()).toBe(true);
    await h.checkView("cohort-form-empty");

    // Typed then cleared is empty again, not an error.
    await idsBox().fill("pro-1");
    await summary(1).waitFor();
    await idsBox().fill("");
    await page().getByText("No pro ids yet").waitFor();
    expect(await page().getByText("List at least 1 pro id").count()).toBe(0);
  });

  test.each(LISTS)("pasted: $what", async ({ text, ids }) => {
    await idsBox().fill(text);
    await summary(ids.length).waitFor();
    await toSend(ids).waitFor();
  });

  test.each(LISTS)("uploaded: $what", async ({ text, ids }) => {
    await upload().setInputFiles({ name: "pros.csv", mimeType: "text/csv", buffer: Buffer.from(text) });
    await summary(ids.length, "pros.csv").waitFor();
    await toSend(ids).waitFor();
  });

  test("a header is skipped and said so; the operator can take it as data", async () => {
    await idsBox().fill("Pro IDs\npro-1\npro-2");
    await page().getByText("First row taken as a header: Pro IDs").waitFor();
    await page()
      .getByLabel(/First row is a header/)
      .uncheck();
    await toSend(["Pro IDs", "pro-1", "pro-2"]).waitFor();
    expect(await page().getByText("First row taken as a header").count()).toBe(0);
    await page()
      .getByLabel(/First row is a header/)
      .check();
    await toSend(["pro-1", "pro-2"]).waitFor();
  });

  test("a table with several columns: the id column is chosen by its header, and the operator can pick another", async () => {
    const text = "Name\tPro ID\tRegion\nAnn\tpro-2\tNorth\nBo\tpro-3\tSouth\nCy\tpro-4\tEast\nDi\tpro-5\tWest\n";
    await upload().setInputFiles({ name: "team.tsv", mimeType: "text/tab-separated-values", buffer: Buffer.from(text) });
    const column = page().getByLabel("Pro id column");
    expect(await column.locator("option:checked").textContent()).toBe("“Pro ID”: pro-2, pro-3, pro-4, …");
    await toSend(["pro-2", "pro-3", "pro-4", "pro-5"]).waitFor();
    await h.checkView("cohort-form-columns");

    await column.selectOption({ label: "“Name”: Ann, Bo, Cy, …" });
    await toSend(["Ann", "Bo", "Cy", "Di"]).waitFor();
    await column.selectOption({ label: "“Pro ID”: pro-2, pro-3, pro-4, …" });
    await toSend(["pro-2", "pro-3", "pro-4", "pro-5"]).waitFor();

    await page().getByLabel("Cohort number").fill("11");
    await createButton().click();
    await page()
      .getByRole("heading", { name: /^Cohort 11/ })
      .waitFor();
    expect(await createdProIds(11)).toEqual(["pro-2", "pro-3", "pro-4", "pro-5"]);
  });

  test("unknown pros and pros already in an active cohort are named before creation, without blocking it", async () => {
    await cohortsPage();
    await page().getByLabel("Cohort number").fill("12");
    await idsBox().fill('pro_id,note\npro-1,in 900\npro-9999,new\n"pro,9998",quoted\n');
    const warning = page().getByText("2 of these ids are not known pros: pro-9999, pro,9998.");
    await warning.waitFor();
    await page().getByText("They will be restricted all the same when the cohort is activated.").waitFor();
    await page().getByText("1 of these pros is already in an active cohort:").waitFor();
    await page().getByText("pro-1 (cohort 900)").waitFor();
    await summary(3).filter({ hasText: "(2 not known pros)" }).waitFor();
    expect(await createButton().isEnabled()).toBe(true);
    await h.checkView("cohort-form-warnings");

    await createButton().click();
    await page()
      .getByRole("heading", { name: /^Cohort 12/ })
      .waitFor();
    expect(await createdProIds(12)).toEqual(["pro-1", "pro-9999", "pro,9998"]);
  });

  test("problems are listed before sending, and a taken number is said at once", async () => {
    await cohortsPage();
    await page().getByLabel("Cohort number").fill("900");
    await idsBox().fill(`pro-1\npro-2\npro-1\n${"x".repeat(201)}\n"pro-3`);
    await page().getByText("Cohort 900 already exists. The next free number is 901.").waitFor();
    await page().getByText("Remove the repeated ids (1).").waitFor();
    await page().getByText("Pro ids are at most 200 characters (1 longer).").waitFor();
    await page().getByText("A quote mark on line 5 is not closed or is followed by more text.").waitFor();
    expect(await createButton().isDisabled()).toBe(true);
    await h.checkView("cohort-form-problems");

    await page().getByLabel("Cohort number").fill("13");
    expect(await page().getByText("already exists").count()).toBe(0);
  });

  test("a refusal from the service goes as soon as the operator edits the ids or the number", async () => {
    const refusal = page().getByRole("alert").filter({ hasText: "Cohort number 14 already exists" });
    /** Another operator takes the number after the form's check, then the operator presses create. */
    const refusedOn = async (cohortNumber: number) => {
      await page().getByLabel("Cohort number").fill(String(cohortNumber));
      await summary(2).or(summary(3)).waitFor();
      await page().getByText("Checking the ids against known pros").waitFor({ state: "hidden" });
      await h
        .app()
        .caller(admin)
        .restriction.createCohort({ cohortNumber, proIds: ["pro-4"] });
      await createButton().click();
      const refused = page()
        .getByRole("alert")
        .filter({ hasText: `Cohort number ${cohortNumber} already exists` });
      await refused.waitFor();
      return refused;
    };
    await idsBox().fill("pro-2\npro-3");
    await refusedOn(14);
    // The list is asked again: the number shows taken, with the next free one.
    await page().getByText("Cohort 14 already exists. The next free number is 15.").waitFor();
    expect(await createButton().isDisabled()).toBe(true);
    await h.checkView("cohort-form-refused");

    await idsBox().fill("pro-2\npro-3\npro-5");
    await refusal.waitFor({ state: "hidden" });

    const again = await refusedOn(16);
    await page().getByLabel("Cohort number").fill("17");
    await again.waitFor({ state: "hidden" });
    await createButton().click();
    await page()
      .getByRole("heading", { name: /^Cohort 17/ })
      .waitFor();
    expect(await createdProIds(17)).toEqual(["pro-2", "pro-3", "pro-5"]);
    // The two 409s are logged by Chromium as failed loads; nothing else went wrong on the page.
    expect(h.pageProblems.filter((p) => !p.includes("status of 409"))).toEqual([]);
  });
});
