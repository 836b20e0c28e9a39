// Once per browser project: fail `npm run test:browser` when there is no Chromium, and build the console
// from the current source into a folder of this run (so a running service's console/dist is left alone).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "vite";
import type { TestProject } from "vitest/node";
import { chromiumFound, SKIPPED_LINE } from "./chromium.js";

declare module "vitest" {
  interface ProvidedContext {
    consoleDir: string;
  }
}

export default async function setup(project: TestProject) {
  if (!chromiumFound()) {
    if (process.env.REQUIRE_CHROMIUM) throw new Error(SKIPPED_LINE.replace("skipped", "cannot run"));
    return;
  }
  const outDir = await mkdtemp(join(tmpdir(), "rn-console-"));
  // Vitest sets NODE_ENV=test, which would make a development build (React's jsxDEV); the console under
  // test is the production build that npm install makes.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    await build({
      configFile: fileURLToPath(new URL("../../console/vite.config.ts", import.meta.url)),
      build: { outDir, emptyOutDir: true },
      logLevel: "warn",
    });
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
  project.provide("consoleDir", outDir);
  return () => rm(outDir, { recursive: true, force: true });
}
