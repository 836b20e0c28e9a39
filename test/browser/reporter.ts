// Says plainly at the end of a run that the browser tests did not run, and why.
import type { Reporter, Vitest } from "vitest/node";
import { chromiumFound, SKIPPED_LINE } from "./chromium.js";

export default class BrowserSkipReporter implements Reporter {
  private browserProjects = false;

  onInit(vitest: Vitest) {
    this.browserProjects = vitest.projects.some((p) => p.name.startsWith("browser-"));
  }

  onTestRunEnd() {
    // `npm run test:browser` (REQUIRE_CHROMIUM) fails instead, with its own message (global-setup.ts).
    if (this.browserProjects && !chromiumFound() && !process.env.REQUIRE_CHROMIUM) console.log(`\n ${SKIPPED_LINE}\n`);
  }
}
