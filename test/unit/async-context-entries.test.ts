// Every call of the server into better-auth goes through callAuth (server/auth/better-auth.ts): better-auth's
// AsyncLocalStorages are switched off when no counted call runs (server/http/async-context.ts), so a call
// that skipped the count could lose its context when another one ends. A tripwire over the sources: each
// `auth.api.…(` or `auth.handler(` must sit within a few lines after a `callAuth(`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** How far above a better-auth call its callAuth may open (a wrapped argument list). */
const REACH = 3;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The lines of `text` that call into better-auth without a callAuth just before or on them. */
function uncountedAuthCalls(text: string): number[] {
  const lines = text.split("\n");
  return lines.flatMap((line, i) => {
    if (!/\bauth\.(api\.\w+|handler)\(/.test(line)) return [];
    const before = lines.slice(Math.max(0, i - REACH), i + 1).join("\n");
    return /\bcallAuth\(/.test(before) ? [] : [i + 1];
  });
}

describe("calls into better-auth", () => {
  it("are all counted by callAuth in server/", () => {
    const uncounted = sources("server").flatMap((file) => uncountedAuthCalls(readFileSync(file, "utf8")).map((line) => `${file}:${line}`));
    expect(uncounted).toEqual([]);
  });

  it("the tripwire sees a call left out, and one wrapped over a few lines", () => {
    expect(uncountedAuthCalls("const found = await auth.api.getSession({ headers });")).toEqual([1]);
    expect(uncountedAuthCalls("const r = await callAuth(() =>\n  auth.api.createUser({ body }),\n);")).toEqual([]);
    expect(uncountedAuthCalls("await callAuth(async () => {\n  const a = await auth.handler(request);\n});")).toEqual([]);
  });
});
