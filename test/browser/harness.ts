// One listening app (test/helpers/app.ts, on TEST_DB's database) and one Chromium page per test file,
// with the console built by global-setup.ts. Screenshots go to test/browser/screenshots/ (git-ignored).
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { createTestApp, TEST_ORIGIN, TEST_PASSWORD, type TestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { type ServerProcess, startServerProcess, useProcessDatabase } from "../helpers/server-process.js";
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
  /**
   * The view on screen, held to the console's bar at a desktop (1366 px) and a phone (390 px) width: nothing
   * wider than the screen (the elements that stick out are named), and axe-core finds no violation of any
   * of its rules. A screenshot of each width is saved as <name>-1366 and <name>-390 (`viewport` as for
   * screenshot). The page is left at 1366 px.
   */
  checkView(name: string, options?: { viewport?: boolean }): Promise<void>;
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
  /** APP_BASE_URL of the app: where the inbox links a notification's path; unset by default. */
  appBaseUrl?: string;
};

/** The widths every view is checked at (checkView): a laptop and a phone (an iPhone 14's CSS width). */
export const VIEW_WIDTHS = [
  { width: 1366, height: 860 },
  { width: 390, height: 844 },
] as const;

/**
 * What makes the page scroll sideways: the document is wider than the viewport. Names the outermost
 * elements whose right edge passes the viewport's (not inside a box that scrolls on its own), e.g.
 * `table.stacked (right 711)`; empty when the page fits.
 */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const root = document.documentElement;
    if (root.scrollWidth <= root.clientWidth) return [];
    const limit = root.clientWidth;
    const scrollsItself = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const overflowX = getComputedStyle(p).overflowX;
        if (overflowX === "auto" || overflowX === "scroll" || overflowX === "hidden") return true;
      }
      return false;
    };
    const out: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      const right = el.getBoundingClientRect().right;
      if (right <= limit + 0.5 || scrollsItself(el)) continue;
      // Only the outermost: a parent already named covers its children.
      if (el.parentElement && el.parentElement.getBoundingClientRect().right > limit + 0.5 && el.parentElement !== document.body) continue;
      const cls = typeof el.className === "string" && el.className ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
      out.push(`${el.tagName.toLowerCase()}${cls} (right ${Math.round(right)}): ${(el.textContent ?? "").trim().slice(0, 40)}`);
    }
    return out.length ? out : [`document ${root.scrollWidth} px wide`];
  });
}

/** More stops than any view has between two controls. */
const MAX_TABS = 80;

/** Tab (or Shift+Tab) until `target` has focus, as a keyboard user would; throws after MAX_TABS presses. */
export async function tabTo(page: Page, target: Locator, key: "Tab" | "Shift+Tab" = "Tab"): Promise<number> {
  for (let presses = 0; presses < MAX_TABS; presses++) {
    if (await target.evaluate((el) => el === document.activeElement)) return presses;
    await page.keyboard.press(key);
  }
  throw new Error(`${MAX_TABS} presses of ${key} never reached ${target}`);
}

/** What has focus now: its tag, its text, and whether all of it (or its top, when taller) is on screen. */
export function focusedElement(page: Page): Promise<{ tag: string; text: string; onScreen: boolean }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const box = el.getBoundingClientRect();
    // A pixel of slack: scrollIntoView lines a bottom edge up with the screen's to a fraction of a pixel.
    const onScreen =
      box.top >= 0 && box.top < window.innerHeight && (box.bottom <= window.innerHeight + 1 || box.height > window.innerHeight);
    return { tag: el.tagName.toLowerCase(), text: (el.textContent ?? "").trim(), onScreen };
  });
}

type AxeViolation = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

/** An axe-core violation as one readable line: the rule, why, and the first elements it found. */
const describeViolation = (v: AxeViolation) =>
  `${v.id} (${v.impact}): ${v.help} — ${v.nodes
    .slice(0, 3)
    .map((n) => n.target.join(" "))
    .join(" | ")}`;

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
        appBaseUrl: options.appBaseUrl,
      });
      await testApp.app.listen({ port, host: "localhost" });
    } else {
      testApp = await createTestApp({ consoleDir: inject("consoleDir"), approvals: options.approvals, appBaseUrl: options.appBaseUrl });
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
    async checkView(name, options = {}) {
      const p = need(page, "page");
      try {
        for (const { width, height } of VIEW_WIDTHS) {
          await p.setViewportSize({ width, height });
          // Two frames: the layout of the new width is done and painted.
          await p.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
          const wide = await overflowing(p);
          expect(wide, `${name} at ${width} px, wider than the screen: ${wide.join("; ")}`).toEqual([]);
          await this.screenshot(`${name}-${width}`, options);
          const { violations } = await new AxeBuilder({ page: p }).analyze();
          const found = violations.map(describeViolation);
          expect(found, `${name} at ${width} px, axe-core: ${found.join("; ")}`).toEqual([]);
        }
      } finally {
        await p.setViewportSize({ width: 1366, height: 860 });
      }
    },
    signIn: (email) => signInThrough(need(page, "page"), email),
    pageProblems,
  };
}

export type ProcessConsole = {
  /** http://127.0.0.1:<port>, the same across restarts. */
  origin(): string;
  page(): Page;
  /** The admin the server created from ADMIN_EMAIL (the page signs in as them with signIn()). */
  admin(): { email: string; id: string };
  /** Opens the console and signs in as the admin through its form; resolves on the cohort list. */
  signIn(): Promise<void>;
  /** Ends the server process: SIGTERM or SIGINT (a graceful restart, a deploy) or SIGKILL (a crash). */
  stop(signal: "SIGTERM" | "SIGINT" | "SIGKILL"): Promise<void>;
  /** Starts it again on the same port and database (the previous one must have been stopped). */
  start(): Promise<void>;
  /** A tRPC mutation as the admin, from outside the page (another operator's tab). */
  mutate(path: string, input: unknown): Promise<unknown>;
};

/**
 * The console served by a real server process (test/helpers/server-process.ts) on a database that outlives
 * it, so a test can stop and start the service under an open page. The console is the built console/dist
 * (`npm run build:console`), as `npm start` serves it.
 */
export function useProcessConsole(): ProcessConsole {
  const databaseEnv = useProcessDatabase();
  const email = `ops-${randomBytes(3).toString("hex")}@test.local`;
  let env: Record<string, string> = {};
  let server: ServerProcess | undefined;
  let port: number | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let admin: { id: string; token: string } | undefined;

  beforeAll(async () => {
    env = {
      BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
      ...databaseEnv(),
      ADMIN_EMAIL: email,
      ADMIN_PASSWORD: TEST_PASSWORD,
      LOG_LEVEL: "silent",
    };
    server = await startServerProcess(env);
    port = server.port;
    const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email, password: TEST_PASSWORD }),
    });
    const body = (await res.json()) as { token: string; user: { id: string } };
    admin = { id: body.user.id, token: body.token };
    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1366, height: 860 } });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
  });

  const need = <T>(value: T | undefined, what: string): T => {
    if (!value) throw new Error(`useProcessConsole: no ${what} yet (call inside a test)`);
    return value;
  };
  return {
    origin: () => `http://127.0.0.1:${need(port, "port")}`,
    page: () => need(page, "page"),
    admin: () => ({ email, id: need(admin, "admin").id }),
    signIn: () => signInThrough(need(page, "page"), email),
    async stop(signal) {
      const s = need(server, "server");
      if (signal === "SIGKILL") await s.kill();
      else {
        s.signal(signal);
        await s.exited;
      }
    },
    async start() {
      server = await startServerProcess(env, 45_000, need(port, "port"));
    },
    async mutate(path, input) {
      const url = need(server, "server").url;
      const res = await fetch(`${url}/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: url, authorization: `Bearer ${need(admin, "admin").token}` },
        body: JSON.stringify({ json: input }),
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
  };
}

/** Signs an admin in through the console's form, as a person would, and waits for its first view. */
async function signInThrough(p: Page, email: string): Promise<void> {
  await p.goto("/console");
  await p.getByLabel("Email").fill(email);
  await p.getByLabel("Password").fill(TEST_PASSWORD);
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.getByRole("heading", { name: "Cohorts", exact: true }).waitFor();
}
