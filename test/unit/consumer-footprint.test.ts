// What an app's type-check loads when it imports AppRouter (test/consumer/, strict ES2022): the contracts'
// zod schemas and their import-free constants, never the server's database, auth or HTTP modules. Before
// server/routers/app-router.ts it loaded 1,347 files (drizzle, kysely, better-auth, pglite, fastify…).
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

describe("the consumer app's type-check", () => {
  it("loads only the contracts, zod and the client's own packages", () => {
    const files = execFileSync(process.execPath, [tsc, "-p", "test/consumer", "--listFilesOnly"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    const packages = new Set(files.flatMap((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1] ?? []));
    const ours = files
      .filter((f) => !f.includes("node_modules") && !f.includes("/test/consumer/"))
      .map((f) => f.slice(f.indexOf("/server/") >= 0 ? f.indexOf("/server/") + 1 : f.indexOf("/db/") + 1));
    for (const heavy of [
      "drizzle-orm",
      "kysely",
      "better-auth",
      "@electric-sql/pglite",
      "fastify",
      "postgres",
      "web-push",
      "prom-client",
    ]) {
      expect(packages, heavy).not.toContain(heavy);
    }
    expect([...packages].sort()).toEqual(expect.arrayContaining(["@trpc/client", "@trpc/server", "zod"]));
    // The contracts, the domain's input schemas and the import-free rules and constants these read; no
    // handler, door or database module.
    const allowed = [
      /^server\/routers\//,
      /^server\/(restriction|notifications|accounts|audit)\/([a-z-]*schemas|[a-z-]*limits|pagination|urls|listing-cursor)\.ts$/,
      /^server\/(errors\/errors|push\/(endpoint|funnel|topic)|http\/text)\.ts$/,
      /^db\/categories\.ts$/,
      /^db\/schema\/(account-values|audit-actions|restriction-values|api-key-scopes|delivery-statuses)\.ts$/,
    ];
    expect(ours.filter((f) => !allowed.some((a) => a.test(f)))).toEqual([]);
    expect(ours.filter((f) => /\/(router|index|inbox|cohorts|pros)\.ts$/.test(f))).toEqual([]);
    expect(files.length).toBeLessThan(400);
    // A whole type-check: seconds of CPU, more on a busy machine, not a measure of anything.
  }, 60_000);
});
