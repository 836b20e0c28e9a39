// One listening app (test/helpers/app.ts, on TEST_DB's database) and one Chromium page per test file,
// with the console built by global-setup.ts. Screenshots go to test/browser/screenshots/ (git-ignored).
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { launchChromium } from "./chromium.js";

const SCREENSHOTS = fileURLToPath(new URL("./screenshots/", import.meta.url));

export type ConsoleHarness = {
  app(): TestApp;
  page(): Page;
  /**
   * Saves the page as test/browser/screenshots/<db>-<name>.png and returns the path: the whole page, or
   * with `viewport` what is on screen (a modal dialog and its backdrop cover only that).
   */
  screenshot(name: string, options?: { viewport?: boolean }): Promise<string>;
  /** Console errors and uncaught exceptions the page reported so far. */
  pageProblems: string[];
};

export function useConsole(): ConsoleHarness {
  let testApp: TestApp | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    testApp = await createTestApp({ consoleDir: inject("consoleDir") });
    // TEST trusted origins admit any http://127.0.0.1 port, so the page's sign-in is a trusted origin.
    await testApp.app.listen({ port: 0, host: "127.0.0.1" });
    const { port } = testApp.app.server.address() as AddressInfo;
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: `http://127.0.0.1:${port}`, viewport: { width: 1366, height: 860 } });
    page = await context.newPage();
    // Generous: CI runs these beside the integration suites on two cores.
    page.setDefaultTimeout(20_000);
    page.on("console", (message) => {
      if (message.type() === "error") pageProblems.push(message.text());
    });
    page.on("pageerror", (error) => pageProblems.push(`uncaught: ${error.message}`));
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await testApp?.app.close();
    await testApp?.db.close();
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (!value) throw new Error(`useConsole: no ${what} yet (call inside a test)`);
    return value;
  };
  return {
    app: () => need(testApp, "app"),
    page: () => need(page, "page"),
    async screenshot(name, options = {}) {
      const path = `${SCREENSHOTS}${testDbKind()}-${name}.png`;
      await need(page, "page").screenshot({ path, fullPage: !options.viewport });
      return path;
    },
    pageProblems,
  };
}
