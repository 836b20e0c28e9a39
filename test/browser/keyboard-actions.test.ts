// Keyboard only, at 1366 and 390 px: after each action below focus is on its result or its error, never
// left on <body> (a button disabled while it works drops it there) nor on the view's <h1>; the first Tab
// of a page reaches "Skip to content", whose Enter puts focus in the main region; the activation preview
// puts focus on the same element each time it opens, loading or not (issue AD.5).
import type { Locator } from "playwright-core";
import { describe, expect, test } from "vitest";
import type { TestUser } from "../helpers/app.js";
import { chromiumFound } from "./chromium.js";
import { focusedElement, tabTo as tabToOn, useConsole, VIEW_WIDTHS } from "./harness.js";

describe.skipIf(!chromiumFound())("keyboard: focus follows each action", () => {
  const h = useConsole();
  let admin: TestUser;
  const page = () => h.page();
  const tabTo = (target: Locator, key?: "Tab" | "Shift+Tab") => tabToOn(page(), target, key);
  const focused = () => focusedElement(page());
  /** Whether focus is on `target` itself. */
  const hasFocus = (target: Locator) => target.evaluate((el) => el === document.activeElement);
  /** Types into the focused field and presses Enter: a form sent from the keyboard. */
  async function typeAndEnter(text: string) {
    await page().keyboard.type(text);
    await page().keyboard.press("Enter");
  }

  for (const [i, { width, height }] of VIEW_WIDTHS.entries()) {
    test(`${width} px: a failed sign-in puts focus on its error`, async () => {
      if (i === 0) admin = await h.app().signUp({ admin: true });
      await page().setViewportSize({ width, height });
      await page().context().clearCookies();
      await page().goto("/console");
      await page().getByLabel("Email").waitFor();
      expect(await hasFocus(page().getByLabel("Email"))).toBe(true);
      await page().keyboard.type(admin.email);
      await page().keyboard.press("Tab");
      await typeAndEnter("not-the-password-at-all");
      const error = page().getByRole("alert");
      await error.waitFor();
      await expect.poll(() => hasFocus(error)).toBe(true);
      expect((await focused()).onScreen).toBe(true);
    });

    test(`${width} px: the first Tab reaches "Skip to content", and Enter moves focus into main`, async () => {
      await h.signIn(admin.email);
      await page().setViewportSize({ width, height });
      await page().goto("/console/pros");
      await page().getByRole("heading", { level: 1, name: "Pro lookup" }).waitFor();
      await page().keyboard.press("Tab");
      expect(await focused()).toMatchObject({ tag: "a", text: "Skip to content", onScreen: true });
      await page().keyboard.press("Enter");
      expect(await page().evaluate(() => document.querySelector("main")?.contains(document.activeElement))).toBe(true);
      // From there the view's first field is a Tab or two away, not the header's and navigation's dozen.
      expect(await tabTo(page().getByLabel("Pro id"))).toBeLessThanOrEqual(2);
    });

    test(`${width} px: Look up puts focus on the pro's status, not the heading`, async () => {
      await page().keyboard.type(`pro-f${i}`);
      await page().keyboard.press("Enter");
      const result = page().getByRole("region", { name: new RegExp(`^pro-f${i}`) });
      await result.waitFor();
      await expect.poll(() => hasFocus(result)).toBe(true);
      expect((await focused()).onScreen).toBe(true);
    });

    test(`${width} px: Find and Send push in the test sender put focus on what they found and answered`, async () => {
      await page().goto("/console/test-sender");
      await page().getByRole("heading", { level: 1, name: "Test sender" }).waitFor();
      await tabTo(page().getByLabel("Email address contains"));
      await typeAndEnter(admin.email);
      const found = page().getByRole("status").filter({ hasText: "1 user found: choose one." });
      await found.waitFor();
      await expect.poll(() => hasFocus(found)).toBe(true);

      await tabTo(page().getByRole("button", { name: new RegExp(admin.email) }));
      await page().keyboard.press("Enter");
      await tabTo(page().getByLabel("Title"));
      await page().keyboard.type("Focus check");
      await tabTo(page().getByRole("button", { name: "Send push" }));
      await page().keyboard.press("Enter");
      // The harness's service has no VAPID keys: the answer is an error, and focus is on it.
      const answer = page().getByRole("region", { name: "Result" });
      await answer.getByText("VAPID not configured").waitFor();
      await expect.poll(() => answer.evaluate((el) => el.contains(document.activeElement))).toBe(true);
      expect((await focused()).onScreen).toBe(true);
    });

    test(`${width} px: Mark all read puts focus on what it did`, async () => {
      await h
        .app()
        .caller(admin)
        .notifications.testInApp({ type: "system.test", title: `Unread ${i}`, targetUserId: admin.id });
      await page().goto("/console/inbox");
      await page()
        .getByRole("heading", { level: 3, name: `Unread ${i}` })
        .waitFor();
      await tabTo(page().getByRole("button", { name: "Mark all read" }));
      await page().keyboard.press("Enter");
      const done = page().getByRole("status").filter({ hasText: "Marked 1 notification read." });
      await done.waitFor();
      await expect.poll(() => hasFocus(done)).toBe(true);
    });

    test(`${width} px: the activation preview puts focus on the same element at each opening`, async () => {
      const cohort = await h
        .app()
        .caller(admin)
        .restriction.createCohort({ cohortNumber: 950 + i, proIds: [`pro-d${i}1`, `pro-d${i}2`] });
      await page().goto(`/console/cohorts/${cohort.id}`);
      await page()
        .getByRole("heading", { level: 1, name: new RegExp(`Cohort ${950 + i}`) })
        .waitFor();
      const opener = page().getByRole("button", { name: "Preview activation…" });
      const dialog = page().getByRole("dialog");
      const firstFocus: { tag: string; text: string }[] = [];
      for (let opening = 0; opening < 2; opening++) {
        await tabTo(opener);
        await page().keyboard.press("Enter");
        await dialog.getByRole("row", { name: /^Turn on/ }).waitFor();
        const { tag, text } = await focused();
        firstFocus.push({ tag, text });
        expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
        await page().keyboard.press("Escape");
        await dialog.waitFor({ state: "hidden" });
        expect(await hasFocus(opener)).toBe(true);
      }
      // Cancel: the choice that changes nothing, whether the preview was still loading or already in.
      expect(firstFocus).toEqual([
        { tag: "button", text: "Cancel" },
        { tag: "button", text: "Cancel" },
      ]);
    });
  }
});
