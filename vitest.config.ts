import { defineConfig } from "vitest/config";

// Two groups, one after the other. Every file but the browser's runs two at a time: each runs in one Node
// process (the service, its client, and PGlite's engine, or PostgreSQL's backend beside it), so a second file
// uses the second core. The browser files run alone, after the rest (Vitest puts files of one worker at
// group order 0 last): Chromium and the service under test already fill both cores, and two at once made
// every browser file ~3 times slower, no faster in all. That keeps CI under its 45 minutes. The time limits only end a test that hangs; on a loaded machine a test that
// starts a server process can take half a minute.
const BROWSER_GROUP = { sequence: { groupOrder: 0 }, maxWorkers: 1 };
const NODE_GROUP = { sequence: { groupOrder: 1 }, maxWorkers: 2 };

// Integration suites run once on PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
const integration = (name: string, db: "pglite" | "postgres", only: string[] = [], exclude: string[] = []) => ({
  test: {
    name,
    include: ["test/integration/**/*.test.ts", ...only],
    exclude: ["**/node_modules/**", ...exclude],
    env: { TEST_DB: db },
    testTimeout: 60_000,
    hookTimeout: 90_000,
    ...NODE_GROUP,
  },
});

// Suites of the HTTP shell whose subject is decided before any statement reaches the database (request
// guards, paths, the OpenAPI document, bad input at its bounds, push-endpoint SSRF checks): the same code on
// either driver, so they run on PGlite only and CI stays under its 45 minutes. Suites that count rate limits
// (kept in PostgreSQL there) run on both.
const HTTP_SHELL_ONLY = [
  "bad-input.limits",
  "client-errors",
  "client-example",
  "client-example-unreachable",
  "openapi",
  "openapi-auth",
  "openapi-contract",
  "oversized-uploads",
  "paths",
  "push-ssrf",
  "request-guards",
  "settings",
  "sign-up-closed",
  "trpc-malformed-input",
].map((name) => `test/integration/${name}.test.ts`);

// The operator console in Debian's Chromium (test/browser/chromium.ts), on the embedded database: what the
// console sends and reads is the API the integration suites test on both drivers. Without a Chromium they
// are skipped and the run says so (test/browser/reporter.ts); `npm run test:browser` fails.
const browser = (name: string, db: "pglite" | "postgres") => ({
  test: {
    name,
    include: ["test/browser/**/*.test.ts"],
    env: { TEST_DB: db },
    globalSetup: ["test/browser/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    ...BROWSER_GROUP,
  },
});

export default defineConfig({
  test: {
    reporters: ["default", "./test/browser/reporter.ts"],
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"], ...NODE_GROUP } },
      // test/pglite/ holds what only the embedded driver has (its settings); test/postgres/ the reverse.
      integration("pglite", "pglite", ["test/pglite/**/*.test.ts"]),
      browser("browser-pglite", "pglite"),
      ...(process.env.TEST_DATABASE_URL ? [integration("postgres", "postgres", ["test/postgres/**/*.test.ts"], HTTP_SHELL_ONLY)] : []),
    ],
  },
});
