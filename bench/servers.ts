// Starts a server script as a child process (its own event loop, as in production: the load generator in
// this process does not steal its CPU time), waits for the port it reports, and stops it again.
import { type ChildProcess, fork } from "node:child_process";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The product's hot reads by where they were answered from (memory_reads_total). */
export type MemoryReads = { memory: number; database: number };

/** No reads yet: where a sum of reads starts. */
export const NO_READS: MemoryReads = Object.freeze({ memory: 0, database: 0 });

/** Two counts of reads together. */
export const addReads = (a: MemoryReads, b: MemoryReads): MemoryReads => ({
  memory: a.memory + b.memory,
  database: a.database + b.database,
});

/** The reads counted between two readings of the same counters. */
export const readsSince = (before: MemoryReads, after: MemoryReads): MemoryReads => ({
  memory: after.memory - before.memory,
  database: after.database - before.database,
});

/** What a server process says about itself (bench/child.ts): V8 heap after an optional forced GC, and CPU. */
export type ProbeAnswer = {
  heapUsed: number;
  rss: number;
  cpu: NodeJS.CpuUsage;
  collected: boolean;
  /** The product's hot reads so far, of every kind. */
  memoryReads?: MemoryReads;
};

export type RunningServer = {
  name: string;
  origin: string;
  pid: number;
  /** `gc`: collect garbage first (needs the process started with --expose-gc). */
  probe(options: { gc: boolean }): Promise<ProbeAnswer>;
  stop(): Promise<void>;
};

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  options: { cpuProfDir?: string; execArgv?: string[] } = {},
): Promise<RunningServer> {
  const execArgv = ["--import", "tsx", ...(options.execArgv ?? [])];
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
  let probes = 0;
  return {
    name,
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    probe({ gc }) {
      const id = ++probes;
      return new Promise<ProbeAnswer>((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`${name} did not answer probe ${id}`)), STOP_TIMEOUT_MS);
        const onMessage = (message: { probe?: number } & ProbeAnswer) => {
          if (message?.probe === id) done(null, message);
        };
        const done = (err: Error | null, answer?: ProbeAnswer) => {
          clearTimeout(timer);
          child.off("message", onMessage);
          if (err) reject(err);
          else resolve(answer!);
        };
        child.on("message", onMessage);
        child.send({ probe: id, gc });
      });
    },
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
