// The service's entry points (the database scripts, a server) as child processes run until they exit by
// themselves: a script's whole run, or a start-up that refuses.
import { spawn } from "node:child_process";
import type { Exit } from "./server-process.js";

export const SEED = "db/seed.ts";
export const MIGRATE = "db/migrate.ts";
export const SERVER = "server/main.ts";

/** Runs `entry` (from its sources) with `env` until it exits; killed after `withinMs`. */
export function runToExit(entry: string, env: Record<string, string>, withinMs = 60_000): Promise<Exit> {
  const proc = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  proc.stdout.on("data", (d: Buffer) => stdout.push(d.toString()));
  proc.stderr.on("data", (d: Buffer) => stderr.push(d.toString()));
  const timer = setTimeout(() => proc.kill("SIGKILL"), withinMs);
  // "close", not "exit": all it printed has been read by then.
  return new Promise<Exit>((resolve) =>
    proc.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stdout.join(""), stderr: stderr.join("") });
    }),
  );
}
