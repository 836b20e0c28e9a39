// The service's version, package.json's: the one place it is set, so the OpenAPI document cannot drift from
// it (issue AD.6). Read at run time, walking up from this file, because the sources (server/) and the build
// (build/server/) sit at different depths below the package's root.
import { existsSync, readFileSync } from "node:fs";

function readVersion(): string {
  for (let dir = new URL(".", import.meta.url); ; dir = new URL("..", dir)) {
    const file = new URL("package.json", dir);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
    if (dir.pathname === "/") throw new Error("package.json not found above server/version.ts");
  }
}

export const SERVICE_VERSION = readVersion();
