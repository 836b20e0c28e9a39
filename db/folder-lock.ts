// One process per embedded database folder (CONTRACT.md part four): PGlite has no server of its own, so two
// processes on one PGLITE_DIR (a server and `npm run db:seed`) would each write the files as if alone, and lose
// or corrupt data. The first to open the folder holds a lock file in it naming its PID; any other stops at once
// with one line naming that PID. A lock whose process is gone (killed, crashed) is taken over; one written on
// another host (a container recreated under a new hostname) cannot be checked, and its line says what to do.
//
// Hand-written: proper-lockfile and its kin judge a lock stale by its age (a holder must touch it every few
// seconds), and PGlite blocks the event loop for longer than that on a big statement; nor do they name the PID.
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

export const LOCK_FILE = "process.lock";

/** Another live process holds the folder (or its lock cannot be read): one line for the operator. */
export class FolderInUseError extends Error {
  constructor(
    message: string,
    readonly holderPid: number | null,
  ) {
    super(message);
    this.name = "FolderInUseError";
  }
}

/** The holder as its lock file names it; `start` (Linux) tells it from a later process given the same PID. */
type Holder = { pid: number; host: string; token: string; start: string };

const parse = (text: string): Holder | null => {
  const [pid, host, token, start] = text.trim().split(" ");
  return pid && /^\d+$/.test(pid) && host && token && start ? { pid: Number(pid), host, token, start } : null;
};

/** When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat); "-" where there is no /proc. */
const startOf = (pid: number): string => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "-";
  } catch {
    return "-";
  }
};

/** The tokens of the locks this process holds: its own PID in a lock is a previous run's unless listed here. */
const heldHere = new Set<string>();

/**
 * Whether the holder still runs on this machine: its PID answers signal 0 (EPERM: under another user) and,
 * where /proc tells, it started when the holder did, so a PID reused by another process (after a restart in a
 * container, where the server is often PID 1 again) is not taken for the holder.
 */
const alive = (holder: Holder) => {
  if (holder.pid === process.pid) return heldHere.has(holder.token);
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const start = startOf(holder.pid);
  return holder.start === "-" || start === "-" || start === holder.start;
};

const readHolder = (file: string): Holder | null | "absent" => {
  try {
    return parse(readFileSync(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw err;
  }
};

const line = (h: Holder) => `${h.pid} ${h.host} ${h.token} ${h.start}\n`;

const inUse = (dir: string, pid: number) =>
  new FolderInUseError(
    `PGLITE_DIR ${dir} is in use by process ${pid}: stop it first, one process at a time may open an embedded database folder`,
    pid,
  );

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** Test seam: runs between finding a dead holder and taking its lock over (a race test does its own take-over there). */
export type LockHooks = { beforeTakeover?: () => void };

/**
 * Takes `dir`'s lock (creating the folder), or throws FolderInUseError naming the live holder. Returns the
 * release, also run at process exit; a `memory://` database has no folder and needs no lock.
 *
 * The lock file appears whole (written aside, then hard-linked into place: link fails if it exists). A dead
 * holder's lock is removed only by whoever first links `process.lock.takeover-<its token>` into place: a
 * token is never reused, so two processes finding the same dead holder cannot both remove a lock, and none
 * can remove the lock of the process that took over.
 */
export function lockPgliteFolder(dir: string, hooks: LockHooks = {}): () => void {
  if (dir.startsWith("memory://")) return () => {};
  mkdirSync(dir, { recursive: true });
  const file = join(dir, LOCK_FILE);
  const me: Holder = {
    pid: process.pid,
    host: hostname().replace(/\s/g, "_") || "localhost",
    token: randomBytes(12).toString("hex"),
    start: startOf(process.pid),
  };
  const aside = `${file}.${me.token}`;
  writeFileSync(aside, line(me), { mode: 0o600 });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(aside, file);
        break;
      } catch (err) {
        if (code(err) !== "EEXIST") throw err;
      }
      const holder = readHolder(file);
      if (holder === "absent") continue; // released meanwhile: try again
      if (holder === null) {
        throw new FolderInUseError(
          `PGLITE_DIR ${dir}: ${file} is not a lock this service wrote; remove it if no process uses the folder`,
          null,
        );
      }
      // Whether a process on another host still runs cannot be told from here, so its lock is never taken
      // over: the line says what the operator must check and do (issue Y, finding 7).
      if (holder.host !== me.host) {
        throw new FolderInUseError(
          `PGLITE_DIR ${dir} was locked by process ${holder.pid} on host ${holder.host}, which cannot be checked from this host: ` +
            `if no process there still uses the folder (a container recreated under a new hostname), delete ${file} and start again`,
          holder.pid,
        );
      }
      if (alive(holder)) throw inUse(dir, holder.pid);
      if (attempt >= 20) throw new FolderInUseError(`PGLITE_DIR ${dir}: its lock (${file}) changed hands 20 times while starting`, null);
      hooks.beforeTakeover?.();
      const marker = `${file}.takeover-${holder.token}`;
      try {
        linkSync(aside, marker); // whole at once, and only if absent, as the lock itself
      } catch (err) {
        if (code(err) !== "EEXIST") throw err;
        // Another process is taking this lock over and will hold the folder; unless it died in those microseconds.
        const taker = readHolder(marker);
        if (taker === "absent") continue;
        if (taker && alive(taker)) throw inUse(dir, taker.pid);
        throw new FolderInUseError(
          `PGLITE_DIR ${dir}: a take-over of its lock was left half done; if no process uses the folder, remove ${marker}`,
          null,
        );
      }
      try {
        // Only the marker's creator removes a lock with this token, so it is still the dead one's if present.
        const still = readHolder(file);
        if (still !== "absent" && still?.token === holder.token) unlinkSync(file);
      } finally {
        unlinkSync(marker);
      }
    }
  } finally {
    unlinkSync(aside);
  }

  heldHere.add(me.token);
  const release = () => {
    if (!heldHere.delete(me.token)) return;
    process.off("exit", release);
    const holder = readHolder(file);
    if (holder !== "absent" && holder?.token === me.token) unlinkSync(file);
  };
  process.on("exit", release);
  return release;
}

/** For the scripts (seed, migrate): a folder in use ends the process with its one line; anything else is thrown. */
export function exitIfFolderInUse(err: unknown): never {
  if (err instanceof FolderInUseError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
