// Layers point down: the console (a browser bundle) takes only types from server/ and db/, never code, with
// one exception: a module of constants that imports nothing itself (the audit actions, the input limits), so
// the console and the service share one list instead of copies.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../../console/src", import.meta.url));
const sources = (readdirSync(root, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f));
const importsOf = (text: string) => [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)];

test("console sources import server/ and db/ as types only, or constants from modules that import nothing", () => {
  expect(sources.length).toBeGreaterThan(0);
  const valueImports = sources.flatMap((file) =>
    importsOf(readFileSync(join(root, file), "utf8"))
      .filter((m) => /(^|\/)(server|db)\//.test(m[1]!))
      .filter((m) => {
        const target = resolve(dirname(join(root, file)), m[1]!.replace(/\.js$/, ".ts"));
        return /^\s*import\s/m.test(readFileSync(target, "utf8"));
      })
      .map((m) => `${file}: ${m[0]}`),
  );
  expect(valueImports).toEqual([]);
});
