// Keyboard only (Tab, Shift+Tab, Enter, Space), at 1366 and 390 px: after "Run gate check" and after a
// confirmed activation, focus is on the result (the gate check's outcome, the cohort's new status) and the
// result is on screen, never left on <body> with the new state scrolled away (issue U.8). The states reached
// are held to the console's bar (h.checkView: fits the screen, no axe-core violation).
import type { Locator } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { focusedElement, tabTo as tabToOn, useConsole, VIEW_WIDTHS } from "./harness.js";

describe.skipIf(!chromiumFound())("keyboard: focus lands on each result", () => {
  const h = useConsole();
  let admin: TestUser;
  const page = () => h.page();

  const tabTo: (target: Locator, key?: "Tab" | "Shift+Tab") => Promise<number> = (target, key) => tabToOn(page(), target, key);
  const focused = () => focusedElement(page());

  for (const [i, { width, height }] of VIEW_WIDTHS.entries()) {
    const cohortNumber = 910 + i;

    test(`${width} px: the gate check's result, then the activated cohort's status, take focus on screen`, async () => {
      if (i === 0) {
        admin = await h.app().signUp({ admin: true });
        await h.signIn(admin.email);
      }
      const cohort = await h
        .app()
        .caller(admin)
        .restriction.createCohort({ cohortNumber, proIds: [`pro-k${i}1`, `pro-k${i}2`] });
      await page().setViewportSize({ width, height });
      await page().goto(`/console/cohorts/${cohort.id}`);
      await page()
        .getByRole("heading", { level: 1, name: new RegExp(`Cohort ${cohortNumber}`) })
        .waitFor();
      await page().getByText("Latest gate check: none yet").waitFor();

      // The gate check, from the keyboard: fill the form, tick the sign-off with Space, send with Enter.
      await tabTo(page().getByLabel("Response rate"));
      await page().keyboard.type("0.9");
      await page().keyboard.press("Tab");
      await page().keyboard.type("60");
      await tabTo(page().getByLabel("Legal has signed the rollout off"));
      await page().keyboard.press("Space");
      await tabTo(page().getByRole("button", { name: "Run gate check" }));
      await page().keyboard.press("Enter");
      await page().getByRole("status").filter({ hasText: "All gates met: the cohort may be activated." }).waitFor();
      await page().getByText("Latest gate check: All gates met").waitFor();
      expect(await focused()).toEqual({ tag: "div", text: "All gates met: the cohort may be activated.", onScreen: true });

      // The activation, from the keyboard: back up to the preview, Tab to Activate once the preview is in.
      await tabTo(page().getByRole("button", { name: "Preview activation…" }), "Shift+Tab");
      await page().keyboard.press("Enter");
      const dialog = page().getByRole("dialog");
      const activate = dialog.getByRole("button", { name: "Activate" });
      await dialog.getByRole("row", { name: /^Turn on/ }).waitFor();
      expect(await activate.isEnabled()).toBe(true);
      await tabTo(activate);
      await page().keyboard.press("Enter");
      await page()
        .getByRole("heading", { level: 1, name: new RegExp(`Cohort ${cohortNumber}\\s*Active`) })
        .waitFor();
      await page()
        .getByRole("status")
        .filter({ hasText: `Cohort ${cohortNumber} activated.` })
        .waitFor();
      expect(await focused()).toEqual({ tag: "p", text: `Cohort ${cohortNumber} activated.`, onScreen: true });
      // Still so once the page has settled (the coverage card above is in).
      await page()
        .getByText(/All 2 pros of this cohort are/)
        .waitFor();
      expect((await focused()).onScreen).toBe(true);
      if (i === 0) await h.checkView("keyboard-activated", { viewport: true });
    });
  }
});
