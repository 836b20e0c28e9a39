// The measurements on a database of their own (each dropped before anything else runs): each one's table and
// verdicts printed and written to bench/results/<name>.md and .json.
import { mkdirSync, writeFileSync } from "node:fs";
import { HEARTBEAT_MS, STALENESS_BOUND_MS } from "../server/memory/feed.js";
import { type BenchDatabase, createBenchDatabase } from "./database.js";
import { measureOfrepStreams, ofrepStreamsTable, ofrepStreamsVerdicts } from "./ofrep-streams.js";
import { measureProducerIngest, producerIngestTable, producerIngestVerdicts } from "./producer-ingest.js";
import { measurePropagation, propagationTable, propagationVerdicts } from "./propagation.js";
import { measurePushCollapse, pushCollapseTable, pushCollapseVerdicts } from "./push-collapse.js";
import { measurePushDrain } from "./push-drain.js";
import { pushDrainTable, pushDrainVerdicts } from "./push-drain-report.js";
import { type Verdict, verdictLines } from "./report.js";
import {
  environment,
  floorEnv,
  live,
  loadAverage,
  log,
  options,
  productEnv,
  profileDir,
  resultsDir,
  secret,
  VAPID_SUBJECT,
  vapid,
} from "./run-context.js";
import { seedBase } from "./seed.js";
import { measureStreams, streamsTable, streamsVerdicts } from "./streams.js";
import { measureWriteCeiling } from "./write-ceiling.js";
import { writeCeilingTable, writeCeilingVerdicts } from "./write-ceiling-report.js";
import { notificationsPerUser } from "./write-ceiling-setup.js";

/**
 * A measurement on a database of its own (dropped before anything else runs): its table and verdicts
 * printed and written to bench/results/<name>.md and .json. `tag` names it in the log.
 */
async function runAlone<R>(
  name: string,
  heading: string,
  setup: string[],
  measure: (db: BenchDatabase) => Promise<R>,
  tableOf: (result: R) => string,
  verdictsOf: (result: R) => Verdict[],
  tag = name,
): Promise<R> {
  const started = Date.now();
  const db = await createBenchDatabase(options.serverUrl);
  live.db = db;
  log(`database ${db.name} created and migrated (${tag})`);
  const env = await environment(setup);
  const result = await measure(db);
  const output = [
    `## ${heading} (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, ${((Date.now() - started) / 60000).toFixed(1)} min)`,
    "",
    ...env,
    `- load average at the end: ${loadAverage()}`,
    "",
    tableOf(result),
    "",
    "Targets:",
    "",
    verdictLines(verdictsOf(result)),
  ].join("\n");
  console.log(`\n${output}\n`);
  if (options.write) {
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(`${resultsDir}${name}.md`, `${output}\n`);
    writeFileSync(`${resultsDir}${name}.json`, `${JSON.stringify(result, null, 1)}\n`);
    log(`written to ${resultsDir}${name}.md`);
  }
  log(`dropping database ${db.name}`);
  await db.drop();
  live.db = undefined;
  return result;
}

/** The live-streams capacity scenario. */
export const runStreams = () =>
  runAlone(
    "streams",
    "Live streams capacity",
    [`- product: one process, started with --expose-gc, pool of 10 connections plus its LISTEN connection`],
    (db) =>
      measureStreams(
        db,
        productEnv(),
        { users: options.streamUsers, streamsPerUser: options.streamsPerUser, changedUsers: options.streamChanges },
        log,
      ),
    streamsTable,
    streamsVerdicts,
    "live streams",
  );

/** OFREP event streams and a cohort activation. */
export const runOfrepStreams = () =>
  runAlone(
    "ofrep-streams",
    "OFREP event streams and a cohort activation",
    [`- product: one process, pool of 10 connections plus its LISTEN connection`],
    (db) =>
      measureOfrepStreams(db, productEnv(), { streams: options.ofrepStreams, pros: options.pros, cohortSize: options.cohortSize }, log),
    ofrepStreamsTable,
    ofrepStreamsVerdicts,
    "OFREP event streams",
  );

/** The producer API under load beside the floor's twin of it (issue O). */
export const runProducerIngest = () =>
  runAlone(
    "producer-ingest",
    "Producer API: batches of 100 events",
    [
      `- load: ${options.connections} connections, ${options.duration} s per run after ${options.warmup} s warm-up; product (VAPID keys set, so its push queue runs) and floor pools ${options.poolSize} connections`,
      `- ${options.ingestUsers} users, one event each per batch; every ${options.ingestSubscribedEvery}th has one push subscription on a local push service answering 201`,
    ],
    (db) =>
      measureProducerIngest(
        db,
        productEnv(),
        {
          users: options.ingestUsers,
          subscribedEvery: options.ingestSubscribedEvery,
          connections: options.connections,
          duration: options.duration,
          warmup: options.warmup,
          floorEnv: floorEnv(db.url),
          cpuProfDir: options.cpuProf ? profileDir : undefined,
        },
        log,
      ),
    producerIngestTable,
    producerIngestVerdicts,
  );

/** The durable push queue draining 1,000 deliveries beside the same sends made directly (issue O). */
export const runPushDrain = () =>
  runAlone(
    "push-drain",
    "Durable push queue: 1,000 deliveries drained",
    [
      `- product: one process, pool of 10 connections, VAPID keys set, http and private push endpoints allowed; the local push service in the bench process, answering 201`,
      `- ${options.drainUsers} users × ${options.drainSubscriptionsPerUser} push subscriptions; ${options.drainRounds} round(s) of product and direct, interleaved`,
    ],
    (db) =>
      measurePushDrain(
        db,
        productEnv(),
        {
          users: options.drainUsers,
          subscriptionsPerUser: options.drainSubscriptionsPerUser,
          rounds: options.drainRounds,
          vapid: { subject: VAPID_SUBJECT, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
          cpuProfDir: options.cpuProf ? profileDir : undefined,
        },
        log,
      ),
    pushDrainTable,
    pushDrainVerdicts,
  );

/** Topic collapse: 1,000 pushes on 100 topics to slow subscriptions, and the sends it saved (issue AC). */
export const runPushCollapse = () =>
  runAlone(
    "push-collapse",
    "Topic collapse: 1,000 pushes on 100 topics to slow subscriptions",
    [
      "- product: one process, VAPID keys set, http and private push endpoints allowed; the local push service in the bench process, each endpoint answering 201 after 300 ms",
      "- 100 users × 1 push subscription; 10 batches of 100 events, event i on topic t-i, posted back to back",
    ],
    (db) => measurePushCollapse(db, productEnv(), log),
    pushCollapseTable,
    pushCollapseVerdicts,
  );

/** Count-changing single-user commits at saturation: the floor, and the product without announcements, with NOTIFY at commit and with the outbox (issue V). */
export function runWriteCeiling() {
  // Five runs (the floor twice, the product three times), each a warm-up, the run and a check request.
  const perUser = notificationsPerUser(5, options.duration + options.warmup + 1, options.ceilingUsers);
  return runAlone(
    "write-ceiling",
    "Write ceiling: count-changing commits with and without announcements",
    [
      `- load: ${options.connections} connections on the floor, ${Math.floor(options.connections / 2)} on each of the two product instances at once; ${options.duration} s per run after ${options.warmup} s warm-up; floor and product pools ${options.poolSize} connections each`,
      `- ${options.ceilingUsers} users, one session and ${perUser} unread notifications each; request i marks user i mod ${options.ceilingUsers}'s next unread notification (PATCH /api/notifications/:id/read); ${options.ceilingUsers} unread-count streams open during each product run, one per user, half on each instance`,
      "- announce() (migration 0018) replaced from the bench for each run: a no-op, pg_notify per user at commit (as before V), the migration's outbox insert (restored at the end)",
    ],
    (db) =>
      measureWriteCeiling(
        db,
        productEnv(),
        {
          users: options.ceilingUsers,
          notificationsPerUser: perUser,
          connections: options.connections,
          duration: options.duration,
          warmup: options.warmup,
          cohortSize: options.cohortSize,
          floorEnv: floorEnv(db.url),
          cpuProfDir: options.cpuProf ? profileDir : undefined,
        },
        log,
      ),
    writeCeilingTable,
    writeCeilingVerdicts,
  );
}

/** A pro's status changed by raw SQL, through the admin API and across a LISTEN outage, until two product instances serve it (issue W). */
export const runPropagation = () =>
  runAlone(
    "propagation",
    "Propagation: a pro's status changed, until two product instances serve it",
    [
      `- product: two instances (processes) on one database, each with its pool of 10 connections, its LISTEN connection and a relay candidate; memory's heartbeat every ${HEARTBEAT_MS} ms, memory served while the newest heard is at most ${STALENESS_BOUND_MS} ms old`,
      `- ${options.propagationChanges} changes by raw SQL, ${options.propagationAdminChanges} through instance A's admin API, ${options.propagationOutageChanges} by raw SQL with B's LISTEN connection terminated just before each; ${options.pros.toLocaleString("en")} pros, half with a stored status`,
    ],
    async (db) => {
      const seeded = await seedBase(db.sql, db.url, secret, { users: 1, pros: options.pros, cohortSize: options.cohortSize });
      const shape = {
        changes: options.propagationChanges,
        adminChanges: options.propagationAdminChanges,
        outageChanges: options.propagationOutageChanges,
      };
      return measurePropagation(db, productEnv(), seeded, shape, log);
    },
    propagationTable,
    propagationVerdicts,
  );
