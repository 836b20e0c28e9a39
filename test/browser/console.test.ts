// The operator's round trip in a real Chromium: sign in, create a cohort from an uploaded CSV, a failing
// then a passing gate check, preview and activate, the pro's history and the audit row, roll back with a
// reason. The tests run in order on one page, as an operator would; each saves a screenshot of its view.
import { describe, expect, test } from "vitest";
import { pros } from "../../db/schema/index.js";
import { TEST_PASSWORD, type TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { useConsole } from "./harness.js";

describe.skipIf(!chromiumFound())("operator console", () => {
  const h = useConsole();
  let admin: TestUser;

  test("signs in with email and password and lists the cohorts", async () => {
    admin = await h.app().signUp({ admin: true, name: "Olivia Operator" });
    await h.app().db.db.insert(pros).values(["pro-b001", "pro-b002", "pro-b003"].map((id) => ({ id, name: `Pro ${id}` })));
    const page = h.page();
    await page.goto("/console");
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Cohorts", exact: true }).waitFor();
    expect(await page.getByText(`Signed in as ${admin.email}`).isVisible()).toBe(true);
    await h.screenshot("01-cohorts");
  });

  test("a CSV upload is checked before sending, then creates the cohort", async () => {
    const page = h.page();
    const upload = page.getByLabel("Or upload a CSV file");
    await upload.setInputFiles({ name: "repeats.csv", mimeType: "text/csv", buffer: Buffer.from("proId\npro-b001\npro-b002\npro-b001\n") });
    await page.getByText("Repeated: pro-b001").waitFor();
    const create = page.getByRole("button", { name: /^Create cohort/ });
    expect(await create.isDisabled()).toBe(true);
    await h.screenshot("02-csv-with-repeats");

    await upload.setInputFiles({
      name: "cohort.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("proId\npro-b001\npro-b002\npro-b003\npro-b004,pro-b005\n"),
    });
    await page.getByText("5 pro ids from cohort.csv").waitFor();
    await page.getByLabel("Cohort number").fill("7");
    await page.getByRole("button", { name: "Create cohort 7" }).click();
    await page.getByRole("heading", { name: /^Cohort 7/ }).waitFor();
    await h.screenshot("03-cohort-created");
  });

  test("a failing gate check names the unmet gates; a passing one clears them", async () => {
    const page = h.page();
    await page.getByLabel("Response rate").fill("0.5");
    await page.getByLabel("Comparisons done").fill("12");
    await page.getByRole("button", { name: "Run gate check" }).click();
    await page.getByText("Gates not met: response_rate 0.5 < 0.6; comparisons_done 12 < 50").waitFor();

    await page.getByLabel("Response rate").fill("0.72");
    await page.getByLabel("Comparisons done").fill("64");
    await page.getByLabel("Legal has signed the rollout off").check();
    await page.getByRole("button", { name: "Run gate check" }).click();
    await page.getByText("All gates met.").waitFor();
    await h.screenshot("04-gate-checks");
  });

  test("the test sender creates an in-app notification and shows a push refusal as the service put it", async () => {
    const page = h.page();
    await page.getByRole("link", { name: "Test sender" }).click();
    await page.getByRole("button", { name: "Send to me" }).click();
    await page.getByLabel("Title").fill("Hello from the console");
    await page.getByRole("button", { name: "Send in-app" }).click();
    await page.getByText("In-app notification created").waitFor();
    expect(await h.app().caller(admin).notifications.unreadCount()).toEqual({ count: 1 });

    await page.getByRole("button", { name: "Send push" }).click();
    await page.getByRole("alert").getByText("VAPID not configured").waitFor();
    await h.screenshot("08-test-sender");
  });

  test("signs out", async () => {
    const page = h.page();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
  });

  test("the page ran under the service's Content-Security-Policy without errors", () => {
    const blocked = h.pageProblems.filter((p) => /Content Security Policy|Refused to|uncaught/i.test(p));
    expect(blocked).toEqual([]);
  });
});
