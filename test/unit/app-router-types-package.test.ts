// AppRouter for a TypeScript app in another repository (issue AD.8): `npm run build:types` emits the router's
// declarations as a package of their own (tools/build-types.mjs). An app outside this repository, in a temp
// folder, installs it by path beside its own @trpc/client, @trpc/server and zod, and type-checks a client:
// a procedure's input and output are typed, and a wrong input is an error.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = new URL("../..", import.meta.url).pathname;
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const work = mkdtempSync(join(tmpdir(), "rn-types-"));

const CLIENT = `import { createTRPCClient, httpBatchLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "restriction-notifications-app-router";

const client = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: "http://127.0.0.1:3000/trpc", transformer: superjson })],
});

export async function restrictedNow(proId: string): Promise<boolean> {
  const status = await client.restriction.getPro.query({ proId });
  return status.restrictionActive;
}

export async function wrongInput(): Promise<void> {
  // @ts-expect-error proId is a string: the types are the router's, not any.
  await client.restriction.getPro.query({ proId: 7 });
}
`;

describe("the AppRouter types package, in an app outside the repository", () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("builds, installs by path and type-checks a client against it", () => {
    const built = join(work, "built");
    execFileSync(process.execPath, ["tools/build-types.mjs", built], { cwd: repo, encoding: "utf8" });
    const pkg = JSON.parse(readFileSync(join(built, "package.json"), "utf8"));
    const root = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
    expect(pkg).toMatchObject({
      name: "restriction-notifications-app-router",
      version: root.version,
      exports: { ".": { types: "./server/routers/app-router.d.ts" } },
      peerDependencies: { "@trpc/server": root.dependencies["@trpc/server"], zod: root.dependencies.zod },
    });

    // The app: its own folder and node_modules, the package copied in as `npm install <path>` would.
    const app = join(work, "app");
    cpSync(built, join(app, "node_modules", pkg.name), { recursive: true });
    mkdirSync(join(app, "node_modules", "@trpc"), { recursive: true });
    for (const dep of ["@trpc/client", "@trpc/server", "zod", "superjson"]) {
      symlinkSync(join(repo, "node_modules", dep), join(app, "node_modules", dep), "dir");
    }
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "an-app", private: true, type: "module" }));
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          noEmit: true,
          types: [],
        },
        files: ["client.ts"],
      }),
    );
    writeFileSync(join(app, "client.ts"), CLIENT);
    const check = () => execFileSync(process.execPath, [tsc, "-p", app], { cwd: app, encoding: "utf8" });
    expect(check()).toBe("");

    // The check can fail: a procedure the router lacks is an error.
    writeFileSync(join(app, "client.ts"), `${CLIENT}\nexport const nope = () => client.restriction.noSuchProcedure.query();\n`);
    const failed = (() => {
      try {
        check();
        return "no error";
      } catch (err) {
        return (err as { stdout: string }).stdout;
      }
    })();
    expect(failed).toMatch(/client\.ts\(\d+,\d+\): error TS\d+: .*noSuchProcedure/);
  }, 120_000);
});
