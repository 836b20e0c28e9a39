import { defineConfig } from "vitest/config";

// Integration suites run once on PGlite, and again on PostgreSQL when TEST_DATABASE_URL is set.
const integration = (name: string, db: "pglite" | "postgres", only: string[] = []) => ({
  test: {
    name,
    include: ["test/integration/**/*.test.ts", ...only],
    env: { TEST_DB: db },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

// The operator console in Debian's Chromium (test/browser/chromium.ts), on the same databases. Without a
// Chromium they are skipped and the run says so (test/browser/reporter.ts); `npm run test:browser` fails.
const browser = (name: string, db: "pglite" | "postgres") => ({
  test: {
    name,
    include: ["test/browser/**/*.test.ts"],
    env: { TEST_DB: db },
    globalSetup: ["test/browser/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
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
      ...(process.env.TEST_DATABASE_URL
        ? [integration("postgres", "postgres", ["test/postgres/**/*.test.ts"]), browser("browser-postgres", "postgres")]
        : []),
    ],
  },
});
