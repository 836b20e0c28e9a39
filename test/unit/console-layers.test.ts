// Layers point down: the console (a browser bundle) takes only types from server/ and db/, never code.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../../console/src", import.meta.url));
const sources = (readdirSync(root, { recursive: true }) as string[]).filter((f) => /\.tsx?$/.test(f));

test("console sources import server/ and db/ as types only", () => {
  expect(sources.length).toBeGreaterThan(0);
  const valueImports = sources.flatMap((file) =>
    [...readFileSync(join(root, file), "utf8").matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)]
      .filter((m) => /(^|\/)(server|db)\//.test(m[1]!))
      .map((m) => `${file}: ${m[0]}`),
  );
  expect(valueImports).toEqual([]);
});
