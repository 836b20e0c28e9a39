// The service out of reach under an open console (a real server process stopped, then started again on
// the same port): views say so in words, not the browser's "Failed to fetch"; reads come back by themselves
// once the service is back, without Refresh; a write made meanwhile says it was not sent again, and is
// not (issue AD.2).
import type { Request } from "playwright-core";
import { describe, expect, test } from "vitest";
import { chromiumFound } from "./chromium.js";
import { useProcessConsole } from "./harness.js";

const UNREACHABLE_READ = "The service cannot be reached. Check your connection; this page retries on its own.";
const UNREACHABLE_WRITE =
  "The service cannot be reached. Check your connection, then try again: the console does not resend changes on its own.";

describe.skipIf(!chromiumFound())("the service out of reach", () => {
  const h = useProcessConsole();
  const page = () => h.page();

  test("a read says so and recovers by itself; a write says so and is sent once", async () => {
    await h.signIn();
    const created = (await h.mutate("restriction.createCohort", { cohortNumber: 930, proIds: ["pro-u1", "pro-u2"] })) as {
      result: { data: { json: { id: string } } };
    };
    await page().goto(`/console/cohorts/${created.result.data.json.id}`);
    await page()
      .getByRole("heading", { level: 1, name: /Cohort 930/ })
      .waitFor();
    const gateChecks: Request[] = [];
    page().on("request", (request) => {
      if (request.url().includes("restriction.checkGates")) gateChecks.push(request);
    });

    await h.stop("SIGTERM");

    // A write while the service is away: the words, and one request only (no resend, not even once it is back).
    await page().getByLabel("Response rate").fill("0.9");
    await page().getByLabel("Comparisons done").fill("60");
    await page().getByLabel("Legal has signed the rollout off").check();
    await page().getByRole("button", { name: "Run gate check" }).click();
    await page()
      .getByRole("alert")
      .filter({ hasText: `Gate check not run: ${UNREACHABLE_WRITE}` })
      .waitFor();

    // A read while it is away: another view, opened in the page, says the same words.
    await page().getByRole("link", { name: "Deliveries" }).click();
    await page().getByRole("heading", { level: 1, name: "Deliveries" }).waitFor();
    await page().getByRole("alert").filter({ hasText: UNREACHABLE_READ }).first().waitFor();
    expect(await page().getByText("Failed to fetch").count()).toBe(0);

    // Back: the view fills in by itself, nobody presses Refresh.
    await h.start();
    await page().getByText("No events from producers yet.").waitFor();
    await expect.poll(() => page().getByRole("alert").count()).toBe(0);
    expect(gateChecks).toHaveLength(1);
  });
});
