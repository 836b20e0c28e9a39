import { defineConfig } from "vitest/config";

// Integration suites run once on PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set. The time
// limits only end a test that hangs; on a loaded machine a test that starts a server process can take half
// a minute. Files run one at a time on 2 cores (Vitest's default there): two at once made every browser
// file ~3 times slower, no faster in all.
const integration = (name: string, db: "pglite" | "postgres", only: string[] = [], exclude: string[] = []) => ({
  test: {
    name,
    include: ["test/integration/**/*.test.ts", ...only],
    exclude: ["**/node_modules/**", ...exclude],
    env: { TEST_DB: db },
    testTimeout: 60_000,
    hookTimeout: 90_000,
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
  },
});

export default defineConfig({
  test: {
    reporters: ["default", "./test/browser/reporter.ts"],
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      // test/pglite/ holds what only the embedded driver has (its settings); test/postgres/ the reverse.
      integration("pglite", "pglite", ["test/pglite/**/*.test.ts"]),
      browser("browser-pglite", "pglite"),
      ...(process.env.TEST_DATABASE_URL ? [integration("postgres", "postgres", ["test/postgres/**/*.test.ts"], HTTP_SHELL_ONLY)] : []),
    ],
  },
});
