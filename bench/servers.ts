// Starts a server script as a child process (its own event loop, as in production: the load generator in
// this process does not steal its CPU time), waits for the port it reports, and stops it again.
import { fork, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type RunningServer = { name: string; origin: string; pid: number; stop(): Promise<void> };

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  options: { cpuProfDir?: string } = {},
): Promise<RunningServer> {
  const execArgv = ["--import", "tsx"];
  if (options.cpuProfDir) {
    // One folder per server: V8 writes a profile per thread (tsx's loader runs in a thread of its own).
    const dir = `${options.cpuProfDir}/${name}`;
    mkdirSync(dir, { recursive: true });
    execArgv.push("--cpu-prof", `--cpu-prof-dir=${dir}`);
  }
  const child: ChildProcess = fork(fileURLToPath(new URL(script, import.meta.url)), [], {
    execArgv,
    env: { ...process.env, NODE_ENV: "production", ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${name} did not start within ${READY_TIMEOUT_MS / 1000} s`));
    }, READY_TIMEOUT_MS);
    child.on("message", (message: { ready?: number }) => {
      if (typeof message?.ready === "number") {
        clearTimeout(timer);
        resolve(message.ready);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready`));
    });
  });

  let stopped: Promise<void> | null = null;
  return {
    name,
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        if (child.connected) child.send("stop");
        else child.kill("SIGTERM");
      });
      return stopped;
    },
  };
}
