// `npm run build:types [outDir]`: AppRouter's declarations as a package of their own (build/types by default),
// for a TypeScript app in another repository (docs/typescript-client.md, "An app in another repository"). Only the
// router's contracts are emitted (tsconfig.types.json); the package names the @trpc/server and zod it was
// built with as peers, since the app's own copies are the ones its type-check reads.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const outDir = resolve(process.argv[2] ?? resolve(root, "build/types"));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const service = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8"));

// Afresh: a declaration left from a module since removed would still be shipped.
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
execFileSync(process.execPath, [tsc, "-p", resolve(root, "tsconfig.types.json"), "--outDir", outDir], { stdio: "inherit" });

const entry = "./server/routers/app-router.d.ts";
writeFileSync(
  resolve(outDir, "package.json"),
  `${JSON.stringify(
    {
      name: "restriction-notifications-app-router",
      version: service.version,
      description: "The AppRouter type of the restriction and notifications service, for typed tRPC clients",
      type: "module",
      types: entry,
      exports: { ".": { types: entry } },
      peerDependencies: {
        "@trpc/server": service.dependencies["@trpc/server"],
        zod: service.dependencies.zod,
      },
    },
    null,
    2,
  )}\n`,
);
console.log(`AppRouter types: ${outDir} (install with npm install ${outDir})`);
