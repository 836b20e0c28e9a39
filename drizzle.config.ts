import { defineConfig } from "drizzle-kit";

// Migrations are generated offline from the schema and committed; the service applies them at start-up.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
});
