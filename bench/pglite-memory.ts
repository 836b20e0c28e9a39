// `node --import tsx bench/pglite-memory.ts [--runs N] [--port P]`: how much memory `npm start` holds on the
// embedded PGlite (port 0, the default: one the system has free at each start). Each run starts the service exactly as `npm start` does (the command in package.json)
// on a new, empty data folder, waits until GET /health/ready answers 200, reads the process's resident
// memory (VmRSS) and its peak so far (VmHWM) from /proc, stops it, then starts it again on the same folder
// (a restart) and reads them again. Prints the median of the runs with their range. Linux only (/proc).
// `npm run bench` runs it once too (measurePgliteMemory) and holds the result to issue J's target.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePort } from "./net.js";
import { median } from "./report.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const READY_TIMEOUT_MS = 180_000;

/** `npm start` without npm in between, so the process measured is the service itself. */
function startCommand(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: { start: string } };
  const [node, ...args] = pkg.scripts.start.split(/\s+/);
  if (node !== "node") throw new Error(`scripts.start does not run node: ${pkg.scripts.start}`);
  return args;
}

type Sample = { rssMb: number; hwmMb: number; readySeconds: number; cpuSeconds: number };

/** Resident memory now and at its peak, and CPU time used (its own threads and reaped children's). */
function measureProcess(pid: number): Omit<Sample, "readySeconds"> {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  // /proc/<pid>/stat after the command's closing parenthesis: utime, stime, cutime, cstime are fields 14–17.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux that matters here
  return { rssMb: kb("VmRSS") / 1024, hwmMb: kb("VmHWM") / 1024, cpuSeconds: ticks / ticksPerSecond };
}

async function isReady(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health/ready`);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Whether `pid` itself listens on `port`: a ready answer from another server on the same port would
 * otherwise be read as this one's, and its memory measured while it is still starting.
 */
function listensOn(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT, st 0A is LISTEN, the inode is the tenth field.
      if (f.length > 9 && parseInt(f[1]!.split(":")[1]!, 16) === port && f[3] === "0A") inodes.add(f[9]!);
    }
  }
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (inodes.has(/^socket:\[(\d+)\]$/.exec(target)?.[1] ?? "")) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

async function measureStart(dataDir: string, wantedPort: number): Promise<Sample> {
  const port = wantedPort || (await freePort());
  if (await answers(port)) throw new Error(`port ${port} is taken: pass another (--port, or 0 for a free one)`);
  const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn" };
  delete env.DATABASE_URL; // the embedded database is what is measured
  const started = performance.now();
  const child = spawn(process.execPath, startCommand(), { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
  try {
    let exited = false;
    child.once("exit", () => (exited = true));
    while (!((await isReady(port)) && listensOn(child.pid!, port))) {
      if (exited) throw new Error(`the service exited (code ${child.exitCode}) before it was ready`);
      if (performance.now() - started > READY_TIMEOUT_MS) throw new Error("the service was not ready in time");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const readySeconds = (performance.now() - started) / 1000;
    return { ...measureProcess(child.pid!), readySeconds };
  } finally {
    await stop(child);
  }
}

function cell(xs: number[], digits: number): string {
  const f = (x: number) => x.toFixed(digits);
  return xs.length > 1 ? `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})` : f(xs[0]!);
}

export type MemorySamples = Record<"fresh" | "restart", Sample[]>;

export async function measurePgliteMemory(runs: number, port: number, log = (line: string) => console.error(line)): Promise<MemorySamples> {
  const samples: MemorySamples = { fresh: [], restart: [] };
  for (let run = 1; run <= runs; run++) {
    const dataDir = mkdtempSync(join(tmpdir(), "pglite-memory-"));
    try {
      for (const phase of ["fresh", "restart"] as const) {
        const sample = await measureStart(dataDir, port);
        samples[phase].push(sample);
        log(
          `run ${run} ${phase}: RSS ${sample.rssMb.toFixed(0)} MB, peak ${sample.hwmMb.toFixed(0)} MB, ready in ${sample.readySeconds.toFixed(1)} s (CPU ${sample.cpuSeconds.toFixed(1)} s)`,
        );
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return samples;
}

export function memoryTable(samples: MemorySamples): string {
  const lines = [
    "| `npm start` on PGlite | RSS when ready (MB) | peak RSS (MB) | ready after (s) | CPU until ready (s) |",
    "|---|---|---|---|---|",
  ];
  for (const phase of ["fresh", "restart"] as const) {
    const s = samples[phase];
    lines.push(
      `| ${phase === "fresh" ? "new data folder" : "restart"} | ${cell(
        s.map((x) => x.rssMb),
        0,
      )} | ${cell(
        s.map((x) => x.hwmMb),
        0,
      )} | ${cell(
        s.map((x) => x.readySeconds),
        1,
      )} | ${cell(
        s.map((x) => x.cpuSeconds),
        1,
      )} |`,
    );
  }
  return lines.join("\n");
}

/** Issue J: half of the ~930 MB `npm start` held when ready on PGlite before it. */
export const PGLITE_MEMORY_TARGET_MB = 465;

export const memoryVerdict = (samples: MemorySamples) => {
  const worst = Math.max(...samples.fresh.map((s) => s.rssMb), ...samples.restart.map((s) => s.rssMb));
  return {
    target: `npm start on PGlite: RSS when ready ≤ ${PGLITE_MEMORY_TARGET_MB} MB (half of ~930 MB before issue J)`,
    met: worst <= PGLITE_MEMORY_TARGET_MB,
    detail: `new data folder ${cell(
      samples.fresh.map((s) => s.rssMb),
      0,
    )} MB, restart ${cell(
      samples.restart.map((s) => s.rssMb),
      0,
    )} MB`,
  };
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { runs: { type: "string", default: "3" }, port: { type: "string", default: "0" } },
  });
  const runs = Number(values.runs);
  const samples = await measurePgliteMemory(runs, Number(values.port));
  console.log(`\n\`npm start\` on PGlite, ${runs} run(s), median (range)\n`);
  console.log(memoryTable(samples));
}
