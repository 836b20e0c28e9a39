// What one `npm run bench` does, from flags (`npm run bench -- --quick --duration=5`) and the environment.
import { parseArgs } from "node:util";

export type BenchOptions = {
  /** A PostgreSQL server URL; a fresh database is created on it and dropped at the end. */
  serverUrl: string;
  /** Seconds each measured load run lasts, and its warm-up before it (discarded). */
  duration: number;
  warmup: number;
  /**
   * Rounds of each saturated scenario: every round runs each target once, back to back, in a turned order (the
   * floor runs once before the from-memory reads, which are measured against bare), and a ratio is the median
   * of the rounds' own ratios, so a machine that speeds up or slows down between windows moves both sides of a
   * ratio alike.
   */
  rounds: number;
  /**
   * The from-memory reads, measured against bare: their rounds and each run's seconds. More, shorter rounds than
   * the database-bound scenarios in about the same time: a round's two windows are seconds apart, and the
   * median of five moves less than the median of three (rounds' ratios spread from 0.45 to 0.81 within one run).
   */
  bareRounds: number;
  bareDuration: number;
  /** Concurrent HTTP connections autocannon keeps open; also the product's and floor's pool size. */
  connections: number;
  poolSize: number;
  /** Requests per second of the paced latency runs (list and unread-count), below every target's capacity. */
  rate: number;
  /** Notifications in the big and the small dataset; the hot user owns hotRows of them in both. */
  rows: number;
  smallRows: number;
  hotRows: number;
  users: number;
  pros: number;
  cohortSize: number;
  subscriptions: number;
  /** Cohort activations and push fan-outs measured (each a sample). */
  activations: number;
  pushRounds: number;
  /** The live-streams capacity scenario (only when named: --only=streams): users, streams each, users changed. */
  streamUsers: number;
  streamsPerUser: number;
  streamChanges: number;
  /** OFREP event streams open in the ofrep-streams measurement (only when named: --only=ofrep-streams). */
  ofrepStreams: number;
  /** producer-ingest (only when named): users per batch (one event each), and every n-th of them subscribed to push. */
  ingestUsers: number;
  ingestSubscribedEvery: number;
  /** push-drain (only when named): users, push subscriptions each (one batch queues users × subscriptions), rounds. */
  drainUsers: number;
  drainSubscriptionsPerUser: number;
  drainRounds: number;
  /** write-ceiling (only when named): users (one live stream each, half on each of two product instances). */
  ceilingUsers: number;
  /** propagation (also in the full run): changes by raw SQL, through the admin API, and across a LISTEN outage. */
  propagationChanges: number;
  propagationAdminChanges: number;
  propagationOutageChanges: number;
  /** Scenario names to run (all but those run only when named when empty). */
  only: string[];
  /** Skip the small-dataset runs. */
  skipSmall: boolean;
  /** Start both servers with --cpu-prof, profiles in bench/results/tmp/. */
  cpuProf: boolean;
  /** Write the results table and EXPLAIN outputs into bench/results/. */
  write: boolean;
  quick: boolean;
};

const USAGE = `npm run bench -- [options]
  --quick               2 s runs, 0.5 s warm-up, 100,000 rows (a smoke run; numbers are rough);
                        streams: 1,000 streams and 100 changes; propagation: 50, 10 and 5 changes
  --duration=S          seconds per measured run (default 10; env BENCH_DURATION)
  --warmup=S            seconds of discarded warm-up before each run (default 2)
  --rounds=N            rounds of each saturated scenario, its targets back to back in a turned order;
                        a ratio is the median of the rounds' (default 3, 1 with --quick; env BENCH_ROUNDS)
  --bare-rounds=N       rounds of the from-memory reads measured against bare (default 5, 1 with --quick;
                        env BENCH_BARE_ROUNDS)
  --bare-duration=S     seconds of each of their runs (default 6, --duration's with --quick; env BENCH_BARE_DURATION)
  --connections=N       autocannon connections (default 10; env BENCH_CONNECTIONS)
  --rate=R              requests/s of the paced latency runs of list and unread-count (default 50)
  --rows=N              notifications in the big dataset (default 1000000; env BENCH_ROWS)
  --only=a,b            run only these scenarios (list, list-category, list-search, unread-count,
                        unread-count-cookie (the session cookie, as a browser sends it),
                        mark-read, pro-status, ofrep-eval, ofrep-bulk, ofrep-bulk-304,
                        cohort-activation, push-fanout, layers,
                        pglite-memory (npm start on PGlite: RSS when ready),
                        propagation (on a database of its own: a pro's status changed by raw SQL, through
                        the admin API and across a LISTEN outage, until two product instances serve it);
                        and, run only when named:
                        streams: 5,000 open SSE streams, heap per stream, a burst of 500 changes and
                        when each reached its streams;
                        ofrep-streams: 1,000 OFREP event streams, 500 of them on the pros of one
                        cohort, which is then activated: when each stream heard of it, NOTIFYs sent;
                        push-collapse: 1,000 pushes on 100 topics to slow subscriptions, sends saved;
                        producer-ingest: POST /api/notifications/events, batches of 100 events for 100
                        users, beside the floor's twin (events/s, commits per batch);
                        push-drain: 1,000 push deliveries queued in one batch, drained by the product's
                        queue to a local push service, beside the same sends made with web-push directly;
                        write-ceiling: mark-read of an unread notification (one commit lowering one count)
                        at saturation for 1,000 users: the floor, then two product instances with 1,000 live
                        unread streams, with no announcement, NOTIFY at commit and the outbox + relay
                        (issue V); delivery, change → event latency, a cohort of 500 as one NOTIFY)
  --skip-small          skip the 10,000-row runs
  --cpu-prof            run the servers with node --cpu-prof (profiles in bench/results/tmp/)
  --no-write            print only; leave bench/results/ as it is
environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); BENCH_PRODUCT_NODE_ARGS,
flags for the product's node alone (--max-semi-space-size=64, --perf-basic-prof)`;

/** A flag's positive number, its fallback when absent; anything else stops the run with the flag's name. */
export function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}: expected a positive number, got "${value}"`);
  return n;
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      duration: { type: "string" },
      warmup: { type: "string" },
      rounds: { type: "string" },
      "bare-rounds": { type: "string" },
      "bare-duration": { type: "string" },
      connections: { type: "string" },
      rate: { type: "string" },
      rows: { type: "string" },
      only: { type: "string" },
      "skip-small": { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      "no-write": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick || env.BENCH_QUICK === "1";
  const connections = Math.floor(positive("--connections", values.connections ?? env.BENCH_CONNECTIONS, 10));
  const rows = Math.floor(positive("--rows", values.rows ?? env.BENCH_ROWS, quick ? 100_000 : 1_000_000));
  const hotRows = Math.min(10_000, rows);
  const duration = positive("--duration", values.duration ?? env.BENCH_DURATION, quick ? 2 : 10);
  return {
    serverUrl: env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
    duration,
    warmup: positive("--warmup", values.warmup, quick ? 0.5 : 2),
    rounds: Math.max(1, Math.floor(positive("--rounds", values.rounds ?? env.BENCH_ROUNDS, quick ? 1 : 3))),
    bareRounds: Math.max(1, Math.floor(positive("--bare-rounds", values["bare-rounds"] ?? env.BENCH_BARE_ROUNDS, quick ? 1 : 5))),
    bareDuration: positive("--bare-duration", values["bare-duration"] ?? env.BENCH_BARE_DURATION, quick ? duration : 6),
    connections,
    poolSize: 10,
    rate: Math.floor(positive("--rate", values.rate ?? env.BENCH_RATE, 50)),
    rows,
    smallRows: hotRows,
    hotRows,
    users: 100,
    pros: 10_000,
    cohortSize: 500,
    subscriptions: 100,
    activations: quick ? 10 : 40,
    pushRounds: quick ? 3 : 10,
    streamUsers: quick ? 500 : 2500,
    streamsPerUser: 2,
    streamChanges: quick ? 100 : 500,
    ofrepStreams: 1000,
    ingestUsers: 100,
    ingestSubscribedEvery: 10,
    drainUsers: 100,
    drainSubscriptionsPerUser: 10,
    drainRounds: quick ? 1 : 3,
    ceilingUsers: 1000,
    propagationChanges: quick ? 50 : 200,
    propagationAdminChanges: quick ? 10 : 50,
    propagationOutageChanges: quick ? 5 : 20,
    only: (values.only ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    skipSmall: values["skip-small"],
    cpuProf: values["cpu-prof"],
    write: !values["no-write"],
    quick,
  };
}
