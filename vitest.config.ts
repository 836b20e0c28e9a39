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

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      integration("pglite", "pglite"),
      ...(process.env.TEST_DATABASE_URL ? [integration("postgres", "postgres", ["test/postgres/**/*.test.ts"])] : []),
    ],
  },
});
