// Every installed package runs on the oldest Node.js that package.json admits (issue U.6: `npm install` on
// Node 20 warned EBADENGINE for packages that asked for Node 22). Read from package-lock.json, which is what
// `npm ci` installs; a new dependency or an update that needs a newer Node fails here instead of warning.
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

type Locked = { version?: string; engines?: { node?: string } | string[]; optional?: boolean };

const manifest = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, Locked> };

const floor = semver.minVersion(manifest.engines.node);

describe("Node.js versions", () => {
  it("package.json names a floor, and this Node.js is at or above it", () => {
    expect(floor?.version).toBe("20.19.0");
    expect(semver.satisfies(process.versions.node, manifest.engines.node)).toBe(true);
  });

  it("every package in package-lock.json admits the floor (no EBADENGINE on `npm ci`)", () => {
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path !== "")
      .flatMap(([path, pkg]) => {
        const range = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
        if (!range || semver.satisfies(floor!, range)) return [];
        return [`${path.replace(/^.*node_modules\//, "")}@${pkg.version}: node ${range}`];
      });
    expect(refused).toEqual([]);
  });
});
