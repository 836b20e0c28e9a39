// Which Chromium the browser tests drive: Debian's (apt-get install chromium), never a downloaded one.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const chromiumFound = () => existsSync(CHROMIUM_PATH);

export const SKIPPED_LINE = `browser tests skipped: no Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`;

/** Headless, as root in a container, and quiet: no calls home that a closed network would refuse. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
