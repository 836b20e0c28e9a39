// npm run soak: the chaos soak. Two or three instances of the service on one fresh PostgreSQL database (one
// in this process, the others `npm start` processes) and a loopback push service; SOAK_SECONDS of a seeded
// random workload (admins under APPROVALS=required, producers, users, OFREP readers and streams, revocations)
// while seeded faults are held and healed; then the checker judges the history and the final database.
// Prints the summary and, last, `faults: N` and `violations: N`; exits 1 on any violation or a growing heap.
// The SOAK_* settings are described in settings.ts; docs/soak.md says how to read a run.
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { check, printViolations } from "./chaos/checker.js";
import { requestCount, setInstances } from "./chaos/client.js";
import { type Cluster, startCluster } from "./chaos/cluster.js";
import { faultRunner } from "./chaos/faults.js";
import { readFinal } from "./chaos/final.js";
import { closeHistory, now, openHistory, readHistory, write } from "./chaos/history.js";
import { startPushRecorder } from "./chaos/push-recorder.js";
import { printSummary } from "./chaos/summary.js";
import { cohortLoop, proWriterLoop } from "./chaos/workload-admin.js";
import { producerLoop } from "./chaos/workload-producer.js";
import { revokeLoop } from "./chaos/workload-revoke.js";
import { ofrepFollowerLoop, ofrepPollLoop, unreadStreamLoop } from "./chaos/workload-streams.js";
import { userLoop } from "./chaos/workload-users.js";
import { control, makeWorld, pause, WATCHED_PROS } from "./chaos/world.js";
import { heapVerdict, memory, sampleProgress, showMemory } from "./report.js";
import { FAULT_EVERY_SECONDS, FAULTS, HISTORY_FILE, INSTANCES, MIN_FAULT_KINDS, SECONDS, SEED, USERS } from "./settings.js";

async function main(): Promise<number> {
  const historyFile = HISTORY_FILE || join(tmpdir(), `soak-history-${SEED}.jsonl`);
  console.log(`soak: ${SECONDS} s, seed ${SEED}, ${INSTANCES} instances, ${USERS} users, faults ${FAULTS.join(", ")}`);
  // What `npm start` runs first: the instances run the compiled server, so it must be current.
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-b", "tsconfig.build.json"], { stdio: "inherit" });
  openHistory(historyFile);
  const onSignal = () => {
    console.log("\ninterrupted: stopping the traffic, then cleaning up");
    control.stopping = true;
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const push = await startPushRecorder();
  let cluster: Cluster | null = null;
  try {
    cluster = await startCluster();
    setInstances(cluster.urls);
    const world = await makeWorld(push);
    write({
      t: "meta",
      seed: SEED,
      instances: INSTANCES,
      urls: cluster.urls,
      creds: { "admin-a": world.adminA.id, "admin-b": world.adminB.id },
    });
    console.log(`instances: ${cluster.urls.join(", ")}; database ${cluster.dbName}; history ${historyFile}`);

    const start = memory();
    console.log(`memory at start: ${showMemory(start)}`);
    const faults = faultRunner(cluster, push);
    const began = Date.now();
    control.deadline = began + SECONDS * 1000;
    write({ t: "meta", began: now() });
    const progress = sampleProgress(began, () => `${requestCount()} requests, ${faults.count()} faults`);
    const streams = new AbortController();
    const streamLoops = [
      ...world.users.map((u, i) => unreadStreamLoop(u, `user-${i}`, streams.signal)),
      ...WATCHED_PROS.map((p) => ofrepFollowerLoop(world.ofrepKey, p, "ofrep-follower", streams.signal)),
    ];
    try {
      await Promise.all([
        faults.loop(),
        proWriterLoop(world),
        cohortLoop(world),
        producerLoop(world, "producer-1"),
        producerLoop(world, "producer-2"),
        ...world.users.map((u, i) => userLoop(u, `user-${i}`)),
        ofrepPollLoop(world.ofrepKey, "ofrep-poller-1"),
        ofrepPollLoop(world.ofrepKey, "ofrep-poller-2"),
        revokeLoop(world),
      ]);
    } finally {
      progress.stop();
    }
    await faults.healed();
    await settle(cluster);
    streams.abort();
    await Promise.all(streamLoops);
    write({ t: "final", at: now(), db: await readFinal(cluster.db) });
    await closeHistory();
    const end = memory();
    const stable = heapVerdict(start, end, progress.samples);

    const history = await readHistory(historyFile);
    printSummary(history);
    const violations = [
      ...check(history),
      ...faults.notStarted().map((what) => ({ kind: "instance not started again", what, requests: [] })),
    ];
    printViolations(violations);
    console.log(`\nhistory: ${historyFile} (node --import tsx test/soak/chaos/checker.ts ${historyFile} checks it again)`);
    const kinds = new Set(history.faults.map((f) => f.kind)).size;
    const enoughFaults = FAULT_EVERY_SECONDS === 0 || kinds >= MIN_FAULT_KINDS;
    if (!enoughFaults)
      console.log(
        `only ${kinds} kinds of faults were held, fewer than SOAK_MIN_FAULT_KINDS=${MIN_FAULT_KINDS}: a longer run, or more often`,
      );
    console.log(`faults: ${faults.count()}`);
    console.log(`violations: ${violations.length}`);
    if (control.stopping) return 1;
    return violations.length === 0 && stable && enoughFaults ? 0 : 1;
  } finally {
    await closeHistory();
    await cluster?.close();
    await push.close();
  }
}

/** After the traffic: every instance up, the database open, and the push queue drained (at most 60 s). */
async function settle(cluster: Cluster) {
  await cluster.server.unsafe(`alter database ${cluster.dbName} allow_connections true`);
  for (const i of cluster.killable) if (!cluster.alive(i)) await cluster.restart(i);
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const [row] = await cluster.db`select count(*)::int as queued from push_deliveries where status = 'queued'`.catch(() => [
      { queued: -1 },
    ]);
    if (row?.queued === 0) break;
    await pause(500);
  }
  // The streams hear the last changes.
  await pause(4000);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
