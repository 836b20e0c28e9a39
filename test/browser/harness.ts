// One listening app (test/helpers/app.ts, on TEST_DB's database) and one Chromium page per test file,
// with the console built by global-setup.ts. Screenshots go to test/browser/screenshots/ (git-ignored).
import { mkdirSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";
import { createTestApp, TEST_ORIGIN, TEST_PASSWORD, type TestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { launchChromium } from "./chromium.js";

const SCREENSHOTS = fileURLToPath(new URL("./screenshots/", import.meta.url));

export type ConsoleHarness = {
  app(): TestApp;
  /** The console's origin, http://127.0.0.1:<port> (or localhost, see ConsoleOptions). */
  origin(): string;
  page(): Page;
  /**
   * Saves the page as test/browser/screenshots/<db>-<name>.png and returns the path: the whole page, or
   * with `viewport` what is on screen (a modal dialog and its backdrop cover only that).
   */
  screenshot(name: string, options?: { viewport?: boolean }): Promise<string>;
  /** Opens the console and signs in through its form (password TEST_PASSWORD); resolves on the cohort list. */
  signIn(email: string): Promise<void>;
  /** Console errors and uncaught exceptions the page reported so far. */
  pageProblems: string[];
};

export type ConsoleOptions = {
  /** APPROVALS of the app (docs/api.md#four-eyes-approval); off by default. */
  approvals?: "off" | "required";
  /**
   * "localhost": the app listens on http://localhost:<port> and trusts that exact origin only (not any
   * 127.0.0.1 port), so a page on another localhost port is the same site but an untrusted origin.
   */
  host?: "127.0.0.1" | "localhost";
};

/** A port no one listens on now, for an app that must know its origin before it starts. */
async function freePort(host: string): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function useConsole(options: ConsoleOptions = {}): ConsoleHarness {
  let testApp: TestApp | undefined;
  let origin: string | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  const pageProblems: string[] = [];

  beforeAll(async () => {
    if (options.host === "localhost") {
      const port = await freePort("localhost");
      origin = `http://localhost:${port}`;
      testApp = await createTestApp({
        consoleDir: inject("consoleDir"),
        trustedOrigins: [TEST_ORIGIN, origin],
        approvals: options.approvals,
      });
      await testApp.app.listen({ port, host: "localhost" });
    } else {
      testApp = await createTestApp({ consoleDir: inject("consoleDir"), approvals: options.approvals });
      // TEST trusted origins admit any http://127.0.0.1 port, so the page's sign-in is a trusted origin.
      await testApp.app.listen({ port: 0, host: "127.0.0.1" });
      origin = `http://127.0.0.1:${(testApp.app.server.address() as AddressInfo).port}`;
    }
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: origin, viewport: { width: 1366, height: 860 } });
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
    origin: () => need(origin, "origin"),
    page: () => need(page, "page"),
    async screenshot(name, options = {}) {
      const path = `${SCREENSHOTS}${testDbKind()}-${name}.png`;
      await need(page, "page").screenshot({ path, fullPage: !options.viewport });
      return path;
    },
    async signIn(email) {
      const p = need(page, "page");
      await p.goto("/console");
      await p.getByLabel("Email").fill(email);
      await p.getByLabel("Password").fill(TEST_PASSWORD);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByRole("heading", { name: "Cohorts", exact: true }).waitFor();
    },
    pageProblems,
  };
}
