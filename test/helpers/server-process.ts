// The real server from its sources (`node --import tsx server/main.ts`; `npm start` runs the same code compiled into build/) as a child process on a
// database of its own, for tests of start-up itself.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { testDbKind } from "./db.js";
import { freePort } from "./net.js";

export type ProcessDatabase = { env: Record<string, string>; close(): Promise<void> };

/**
 * A database that outlives one server process, so a second start finds what the first left: a PGlite
 * folder, or (TEST_DB=postgres) a fresh database on the TEST_DATABASE_URL server.
 */
export async function processDatabase(): Promise<ProcessDatabase> {
  if (testDbKind() === "pglite") {
    const dir = await mkdtemp(join(tmpdir(), "rn-pglite-"));
    return { env: { PGLITE_DIR: dir, DATABASE_URL: "" }, close: () => rm(dir, { recursive: true, force: true }) };
  }
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `rn_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), BETTER_AUTH_SECRET: randomBytes(32).toString("base64url") },
    async close() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** One process database per file (beforeAll/afterAll), as its environment for the server processes. */
export function useProcessDatabase(): () => Record<string, string> {
  let database: ProcessDatabase | undefined;
  beforeAll(async () => {
    database = await processDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return () => {
    if (!database) throw new Error("useProcessDatabase: not ready (call inside a test)");
    return database.env;
  };
}

export type ServerProcess = {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Its process id. */
  pid: number;
  /** What the process printed so far, stdout and stderr together. */
  output(): string;
  /** Whether it is still running. */
  alive(): boolean;
  /** Sends a signal and returns at once (stop() and kill() wait for the exit). */
  signal(signal: NodeJS.Signals): void;
  /** Settles when the process has exited. */
  exited: Promise<Exit>;
  /** Sends SIGTERM and waits for the exit. */
  stop(): Promise<{ code: number | null }>;
  /** Sends SIGKILL (a crash) and waits for the exit. */
  kill(): Promise<{ code: number | null }>;
};

export type Exit = { code: number | null; stdout: string; stderr: string };

function spawnServer(env: Record<string, string>, port: number) {
  const proc = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  proc.stdout.on("data", (d: Buffer) => stdout.push(d.toString()));
  proc.stderr.on("data", (d: Buffer) => stderr.push(d.toString()));
  const exited = new Promise<Exit>((resolve) =>
    proc.once("exit", (code) => resolve({ code, stdout: stdout.join(""), stderr: stderr.join("") })),
  );
  return { proc, exited, output: () => stdout.join("") + stderr.join("") };
}

/**
 * Starts the server and waits until /health/ready answers 200; throws with its output if it exits first.
 * `port`: the one a previous process had, for a restart under the same origin (a page keeps its address).
 */
export async function startServerProcess(env: Record<string, string>, readyWithinMs = 45_000, port?: number): Promise<ServerProcess> {
  port ??= await freePort();
  const { proc, exited, output } = spawnServer(env, port);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    const status = await fetch(`${url}/health/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`server did not get ready:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    port,
    pid: proc.pid!,
    output,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    signal: (signal) => void proc.kill(signal),
    exited,
    async stop() {
      if (proc.exitCode === null) proc.kill("SIGTERM");
      return exited;
    },
    async kill() {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      return exited;
    },
  };
}

/** Runs the server expecting it to stop by itself (a start-up that refuses); kills it after `withinMs`. */
export async function runUntilExit(env: Record<string, string>, withinMs = 45_000): Promise<Exit> {
  const { proc, exited } = spawnServer(env, await freePort());
  const timer = setTimeout(() => proc.kill("SIGKILL"), withinMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
