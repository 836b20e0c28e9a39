// The faults, seeded: one at a time, each held for a while and then healed, with a random gap between them.
// The kinds are taken in a seeded shuffled round, so a short run still meets several kinds. Each fault is in
// the history with the window it was held for; the checker widens its bounds across those windows.
import postgres from "postgres";
import { RELAY_LOCK } from "../../../db/outbox-relay.js";
import { DB_DEADLINE_SECONDS, FAULT_EVERY_SECONDS, FAULTS, type FaultKind, PG_RESTART_ALLOWED } from "../settings.js";
import type { Cluster } from "./cluster.js";
import { newId, now, write } from "./history.js";
import type { PushRecorder } from "./push-recorder.js";
import { actorRng, pause, running } from "./world.js";

type Rng = ReturnType<typeof actorRng>;
/** A fault once held: `healed`, when its heal goes on in the background (an instance starting again). */
type Held = { target: string; note: string; healed?: Promise<string> };

/** Why a fault kind cannot run here, or null when it can. */
export function unavailable(kind: FaultKind): string | null {
  if (kind === "pg-restart" && !PG_RESTART_ALLOWED) {
    return "pg-restart skipped: the PostgreSQL server is shared on this machine and restarting it would cut others off (SOAK_PG_RESTART=1 allows it where the soak owns the server)";
  }
  return null;
}

export function faultRunner(cluster: Cluster, push: PushRecorder) {
  const r = actorRng("faults");
  const soakDb = () => postgres(cluster.dbUrl, { max: 1, onnotice: () => {} });
  const listeners = () =>
    cluster.server`select pid from pg_stat_activity where datname = ${cluster.dbName} and query ilike 'listen %'`.then((rows) =>
      rows.map((x) => x.pid as number),
    );
  const terminate = (pids: number[]) =>
    pids.length ? cluster.server`select pg_terminate_backend(pid) from unnest(${pids}::int[]) as pid` : null;
  const hold = (min: number, max: number) => min + r.int(max - min);
  // Instances start again in the background (slowly, on a loaded machine); others faults go on meanwhile.
  const restarting = new Map<number, Promise<string>>();
  /** Instances that could not be started again: the run fails with them. */
  const notStarted: string[] = [];
  const up = () => cluster.killable.filter((i) => !restarting.has(i) && cluster.alive(i));
  const restart = (inst: number) => {
    const began = Date.now();
    const done = cluster.restart(inst).then(
      (failed) =>
        `, started again in ${Date.now() - began} ms${failed ? ` (${failed} start${failed > 1 ? "s" : ""} failed while a database fault was held, tried again)` : ""}`,
      (err: Error) => {
        notStarted.push(`instance ${inst}: ${err.message.split("\n").slice(0, 3).join(" ")}`);
        return ", NOT started again";
      },
    );
    restarting.set(inst, done);
    void done.finally(() => restarting.delete(inst));
    return done;
  };

  const kinds: Record<FaultKind, () => Promise<Held>> = {
    // The LISTEN connection of every instance is ended while the database refuses new connections: it cannot
    // listen again until the heal, but the pools keep their open connections, so writes go on and their
    // announcements are lost. After the heal every instance must catch up by reading afresh.
    async "listen-terminate"() {
      await cluster.server.unsafe(`alter database ${cluster.dbName} allow_connections false`);
      const pids = await listeners();
      await terminate(pids);
      await pause(hold(2000, 4000));
      await cluster.server.unsafe(`alter database ${cluster.dbName} allow_connections true`);
      return { target: "every instance's LISTEN", note: `${pids.length} LISTEN backends ended, no new connection let in meanwhile` };
    },
    // No new connection is let in; every backend is ended, so every pool must reconnect and cannot.
    async "db-closed"() {
      await cluster.server.unsafe(`alter database ${cluster.dbName} allow_connections false`);
      const pids = (await cluster.server`select pid from pg_stat_activity where datname = ${cluster.dbName}`).map((x) => x.pid as number);
      await terminate(pids);
      await pause(hold(1500, 4000));
      await cluster.server.unsafe(`alter database ${cluster.dbName} allow_connections true`);
      return { target: cluster.dbName, note: `${pids.length} backends ended, database closed to new connections` };
    },
    // A table locked past the deadline: writes (and reads) of it wait, answer 503 at the deadline, write nothing.
    async "table-lock"() {
      const table = r.pick(["notifications", "pro_restriction_status", "notification_events", "idempotency_keys"]);
      const ms = DB_DEADLINE_SECONDS * 1000 + hold(500, 2000);
      const sql = soakDb();
      try {
        await sql.begin(async (tx) => {
          await tx.unsafe(`lock table ${table} in access exclusive mode`);
          await pause(ms);
        });
      } finally {
        await sql.end();
      }
      return { target: table, note: `held ${ms} ms (deadline ${DB_DEADLINE_SECONDS} s)` };
    },
    async sigkill() {
      const inst = r.pick(up());
      await cluster.kill(inst);
      await pause(hold(500, 2500));
      return { target: `instance ${inst}`, note: "SIGKILL", healed: restart(inst) };
    },
    async sigterm() {
      const inst = r.pick(up());
      const code = await cluster.terminate(inst);
      await pause(hold(200, 1500));
      return { target: `instance ${inst}`, note: `SIGTERM under writes, exit code ${code}`, healed: restart(inst) };
    },
    // An impostor ends the relay's session and takes its lock: no instance may announce changes while it holds.
    async "relay-impostor"() {
      const sql = soakDb();
      try {
        const [row] = await sql`
          select (select count(*) from (select pg_terminate_backend(pid) from pg_stat_activity
                  where datname = current_database() and application_name = 'outbox-relay') ended) as ended,
                 pg_advisory_lock(${RELAY_LOCK}) is not null as held`;
        await pause(hold(1500, 4000));
        return { target: "the outbox relay's lock", note: `${row?.ended} relay sessions ended, lock held by an impostor` };
      } finally {
        await sql.end();
      }
    },
    async "pg-restart"() {
      const version = (await cluster.server`show server_version_num`)[0]!.server_version_num as string;
      const { execFileSync } = await import("node:child_process");
      execFileSync("pg_ctlcluster", [String(Math.floor(Number(version) / 10000)), "main", "restart"]);
      return { target: "PostgreSQL", note: "pg_ctlcluster restart" };
    },
    async "push-drop"() {
      await push.drop();
      await pause(hold(1500, 4000));
      await push.restore();
      return { target: "the push service", note: "not listening, connections cut" };
    },
  };

  const enabled = FAULTS.filter((k) => {
    const why = unavailable(k);
    if (why) console.log(why);
    return !why;
  });

  let count = 0;
  const pending = new Set<Promise<void>>();
  const record = (kind: FaultKind, start: number, held: Held, tail = "") => {
    write({ t: "fault", id: newId(), kind, target: held.target, start, end: now(), note: held.note + tail });
    count++;
    console.log(`  fault ${count}: ${kind} (${held.target}): ${held.note}${tail}, ${Math.round(now() - start)} ms`);
  };
  async function loop() {
    if (FAULT_EVERY_SECONDS === 0 || !enabled.length) return;
    let round: FaultKind[] = [];
    while (running()) {
      await pause(FAULT_EVERY_SECONDS * 500 + r.int(FAULT_EVERY_SECONDS * 1000));
      if (!running()) break;
      if (!round.length) round = shuffle(enabled, r);
      const kind = round.shift()!;
      // Every instance that may be killed is starting again: this kind waits for the next round.
      if ((kind === "sigkill" || kind === "sigterm") && !up().length) continue;
      const start = now();
      const held = await kinds[kind]();
      if (!held.healed) {
        record(kind, start, held);
        continue;
      }
      const done = held.healed.then((tail) => record(kind, start, held, tail));
      pending.add(done);
      void done.finally(() => pending.delete(done));
    }
  }
  return {
    loop,
    count: () => count,
    notStarted: () => notStarted,
    /** Resolves when every fault has healed (instances started again). */
    healed: () => Promise.all([...pending]),
  };
}

function shuffle<T>(items: T[], r: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = r.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
