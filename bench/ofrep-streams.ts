// `npm run bench -- --only=ofrep-streams`: how fast a cohort activation reaches the OFREP event streams
// that follow its pros. One product process on a fresh database; 1,000 SSE clients in another process
// (bench/stream-clients.ts), each on the stream URL a bulk evaluation of the product handed out for its own
// pro: the 500 pros of one cohort and 500 pros of other cohorts. Then that cohort is activated through the
// product's procedure (restriction.activateCohort, in this process, as bench/inprocess.ts does: another
// instance's write, which the product hears as every instance does, through the database's NOTIFY), and
// each client's refetchEvaluation is timed from the commit. A LISTEN of the bench's own counts the NOTIFYs
// the activation caused.
import postgres from "postgres";
import { createDb } from "../db/client.js";
import { createContextInner } from "../server/context.js";
import { FLAGS_CHANNEL } from "../server/ofrep/changes.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import type { BenchDatabase } from "./database.js";
import { summarize, type Timing } from "./inprocess.js";
import { bulkEvaluations } from "./ofrep-client.js";
import type { Verdict } from "./report.js";
import { ADMIN_EMAIL, seedApiKey, seedPros } from "./seed.js";
import { type ProbeAnswer, type RunningServer, startServer } from "./servers.js";
import type { ClientStream, StreamReport } from "./stream-clients.js";
import { startClients } from "./streams.js";

export type OfrepStreamsShape = { streams: number; pros: number; cohortSize: number };

export type OfrepStreamsResult = {
  shape: OfrepStreamsShape;
  /** Streams open, and those following a pro of the activated cohort. */
  streams: number;
  cohortStreams: number;
  /** The bulk evaluations that handed out the stream URLs, and opening the streams. */
  urlsMs: number;
  openMs: number;
  /** restriction.activateCohort of the cohort, called → resolved (its transaction committed). */
  activationMs: number;
  /** NOTIFYs on restriction_flags heard by the bench's own LISTEN from the call until 1 s after the last event. */
  notifies: number;
  /** The bench's LISTEN heard the NOTIFY this long after the call was made. */
  notifyAfterMs: number;
  /** Activation → each cohort stream's refetchEvaluation: from the commit, from the call's answer, from the call. */
  fromCommit: Timing;
  fromAnswer: Timing;
  fromSend: Timing;
  /** Cohort streams that received their event; events they received (one each when nothing repeats). */
  deliveredStreams: number;
  cohortEvents: number;
  /** Streams of pros outside the cohort that received an event (should be 0). */
  othersWithEvents: number;
  /** Cohort streams whose last event's ETag differs from the ETag of a bulk evaluation made afterwards. */
  wrongEtags: number;
  endedEarly: number;
  /** The product's CPU from the call to the last event. */
  cpuMs: number;
};

const OPEN_CONCURRENCY = 50;
const OPEN_TIMEOUT_MS = 180_000;
const DELIVERY_TIMEOUT_MS = 10_000;
const SETTLE_MS = 1_000;
const ADMIN = { id: "bench-ofrep-admin", name: "bench-admin", email: ADMIN_EMAIL, role: "admin" };

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuMs = (a: ProbeAnswer, b: ProbeAnswer) => (b.cpu.user - a.cpu.user + b.cpu.system - a.cpu.system) / 1000;

/**
 * The pros followed: every pro of the first cohort, then the rest spread evenly over the other cohorts
 * (the last cohort, which the warm-up activates, holds some of them).
 */
export function followedPros(proIds: readonly string[], shape: OfrepStreamsShape): { cohort: string[]; others: string[] } {
  const cohort = proIds.slice(0, shape.cohortSize);
  const rest = proIds.slice(shape.cohortSize);
  const count = Math.max(0, shape.streams - cohort.length);
  const step = Math.max(1, Math.floor(rest.length / Math.max(1, count)));
  return { cohort, others: rest.filter((_, i) => i % step === 0).slice(0, count) };
}

export async function measureOfrepStreams(
  db: BenchDatabase,
  env: Record<string, string>,
  shape: OfrepStreamsShape,
  log: (message: string) => void,
): Promise<OfrepStreamsResult> {
  await db.sql`insert into users (id, name, email, role) values (${ADMIN.id}, ${ADMIN.name}, ${ADMIN.email}, ${ADMIN.role})`;
  const { proIds, cohortIds } = await seedPros(db.sql, shape);
  const apiKey = await seedApiKey(db.sql, ADMIN);
  await db.sql.unsafe("vacuum (analyze)");
  const { cohort, others } = followedPros(proIds, shape);
  if (cohort.length + others.length !== shape.streams || cohortIds.length < 2) {
    throw new Error(`ofrep-streams: ${shape.pros} pros in cohorts of ${shape.cohortSize} cannot give ${shape.streams} streams`);
  }
  const activated = cohortIds[0]!;
  const warmUpCohort = cohortIds[cohortIds.length - 1]!;
  const lastCohort = new Set(proIds.slice((cohortIds.length - 1) * shape.cohortSize));
  const warmUpFollowed = others.filter((p) => lastCohort.has(p));

  let server: RunningServer | undefined;
  const clients = startClients();
  const handle = await createDb({ databaseUrl: db.url, maxConnections: 2 });
  const listener = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    server = await startServer("product", "./product-server.ts", env);
    const origin = server.origin;
    log(`ofrep-streams: ${cohort.length + others.length} bulk evaluations through the product for the stream URLs`);
    const urlsStarted = now();
    const answers = await bulkEvaluations(origin, apiKey, [...cohort, ...others], 10);
    const urlsMs = now() - urlsStarted;
    // Stream URLs start with the public base URL (BETTER_AUTH_URL), which the bench's server on a random port
    // does not have: the same path and signature, on the server itself.
    const onServer = (url: string) => new URL(`${new URL(url).pathname}${new URL(url).search}`, origin).href;
    const targets: ClientStream[] = answers.map((a) => ({ kind: "ofrep", follows: a.proId, url: onServer(a.url) }));

    log(`ofrep-streams: opening ${targets.length} streams (${OPEN_CONCURRENCY} at a time)`);
    clients.send({ type: "open", origin, streams: targets, concurrency: OPEN_CONCURRENCY, timeoutMs: OPEN_TIMEOUT_MS });
    const opened = await clients.answer("opened", OPEN_TIMEOUT_MS + 10_000);
    if (!opened || opened.ok !== targets.length) {
      throw new Error(`opened ${opened?.ok ?? 0} of ${targets.length} streams: ${opened?.failures.join("; ") ?? "no answer"}`);
    }
    log(`ofrep-streams: ${opened.ok} open after ${(opened.ms / 1000).toFixed(1)} s`);

    const heard: number[] = [];
    await listener.listen(FLAGS_CHANNEL, () => void heard.push(now()));
    const caller = createCaller(createContextInner({ db: handle.db, push: createPushService({ vapid: null }) }, { user: ADMIN }));
    const activate = async (id: string) => {
      const result = await caller.restriction.activateCohort({ id });
      if (result.status !== "active") throw new Error(`activation of cohort ${id} left it ${result.status}`);
    };

    // Warm-up, unmeasured: the last cohort, which some of the other streams follow (the bench's and the
    // product's connections and statements ready, the product's path from NOTIFY to stream compiled).
    log(`ofrep-streams: warm-up activation of the last cohort (${warmUpFollowed.length} streams follow pros of it)`);
    clients.send({ type: "expect", follows: warmUpFollowed });
    await activate(warmUpCohort);
    if (!(await clients.answer("delivered", DELIVERY_TIMEOUT_MS))) throw new Error("the warm-up activation's events did not all arrive");
    await sleep(SETTLE_MS);

    log(`ofrep-streams: activating the cohort of ${cohort.length} pros that ${cohort.length} streams follow`);
    const heardBefore = heard.length;
    const cpuBefore = await server.probe({ gc: false });
    clients.send({ type: "expect", follows: cohort });
    const sent = now();
    await activate(activated);
    const answered = now();
    const delivered = await clients.answer("delivered", DELIVERY_TIMEOUT_MS);
    const cpuAfter = await server.probe({ gc: false });
    if (!delivered) log(`ofrep-streams: not every cohort stream had its event ${DELIVERY_TIMEOUT_MS / 1000} s after the activation`);
    // Late or repeated events, and any further NOTIFY, would arrive now.
    await sleep(SETTLE_MS);
    const notifies = heard.length - heardBefore;
    const notifiedAt = heard[heardBefore] ?? Number.NaN;

    clients.send({ type: "report" });
    const report = await clients.answer("report", 30_000);
    if (!report) throw new Error("the stream clients did not report");
    const after = await bulkEvaluations(origin, apiKey, cohort, 10);
    const etagAfter = new Map(after.map((a) => [a.proId, a.etag]));
    // NOTIFY is sent at commit: the earlier of the bench hearing it and the call returning bounds the commit from above.
    const committed = Math.min(answered, Number.isFinite(notifiedAt) ? notifiedAt : answered);
    return {
      shape,
      streams: opened.ok,
      cohortStreams: cohort.length,
      urlsMs,
      openMs: opened.ms,
      activationMs: answered - sent,
      notifies,
      notifyAfterMs: notifiedAt - sent,
      cpuMs: cpuMs(cpuBefore, cpuAfter),
      endedEarly: report.ended,
      ...arrivals(report.streams, new Set(cohort), etagAfter, { sent, answered, committed }),
    };
  } finally {
    await clients.stop();
    await server?.stop();
    await listener.end({ timeout: 5 });
    await handle.close();
  }
}

/** Each cohort stream's first event after the call, against the call's times; other streams get none. */
function arrivals(
  streams: StreamReport[],
  cohort: Set<string>,
  etagAfter: Map<string, string>,
  at: { sent: number; answered: number; committed: number },
) {
  const fromCommit: number[] = [];
  const fromAnswer: number[] = [];
  const fromSend: number[] = [];
  let othersWithEvents = 0;
  let cohortEvents = 0;
  let wrongEtags = 0;
  for (const s of streams) {
    // Events of the warm-up came before the call.
    const events = s.events.filter(([, time]) => time >= at.sent);
    if (!cohort.has(s.follows)) {
      if (events.length) othersWithEvents++;
      continue;
    }
    cohortEvents += events.length;
    const first = events[0];
    if (!first) continue;
    fromCommit.push(first[1] - at.committed);
    fromAnswer.push(first[1] - at.answered);
    fromSend.push(first[1] - at.sent);
    if (events[events.length - 1]![0] !== etagAfter.get(s.follows)) wrongEtags++;
  }
  return {
    fromCommit: summarize(fromCommit),
    fromAnswer: summarize(fromAnswer),
    fromSend: summarize(fromSend),
    deliveredStreams: fromCommit.length,
    cohortEvents,
    othersWithEvents,
    wrongEtags,
  };
}

const ms = (n: number) => n.toFixed(1);

export function ofrepStreamsVerdicts(r: OfrepStreamsResult): Verdict[] {
  const all = r.deliveredStreams === r.cohortStreams;
  return [
    {
      target: "every stream following a pro of the activated cohort receives its refetchEvaluation, and no other stream does",
      met: all && r.othersWithEvents === 0,
      detail: `${r.deliveredStreams} of ${r.cohortStreams} (${r.cohortEvents} events); ${r.othersWithEvents} of ${r.streams - r.cohortStreams} other streams had one`,
    },
    {
      target: "refetchEvaluation p99 ≤ 1 s after the activation's commit",
      met: all && r.fromCommit.p99 <= 1000,
      detail: `p50 ${ms(r.fromCommit.p50)} ms, p99 ${ms(r.fromCommit.p99)} ms, max ${ms(r.fromCommit.max)} ms (${r.deliveredStreams} streams)`,
    },
    {
      target: `one NOTIFY for the activation of ${r.shape.cohortSize} pros`,
      met: r.notifies === 1,
      detail: `${r.notifies} heard on ${FLAGS_CHANNEL}`,
    },
    {
      target: "each event's ETag is the one a bulk evaluation gives afterwards",
      met: all && r.wrongEtags === 0,
      detail: `${r.wrongEtags} of ${r.deliveredStreams} differ`,
    },
  ];
}

export function ofrepStreamsTable(r: OfrepStreamsResult): string {
  const rows: [string, string, string][] = [
    [
      "streams open",
      `${r.streams} (${r.cohortStreams} on pros of the cohort, ${r.streams - r.cohortStreams} on pros of other cohorts)`,
      `URLs from ${r.streams} bulk evaluations in ${(r.urlsMs / 1000).toFixed(1)} s (10 at a time); opened ${OPEN_CONCURRENCY} at a time in ${(r.openMs / 1000).toFixed(1)} s`,
    ],
    [
      "cohort activation (restriction.activateCohort, in the bench)",
      `${ms(r.activationMs)} ms`,
      `${r.shape.cohortSize} pros; called → resolved, its transaction committed`,
    ],
    [
      "NOTIFYs of the activation",
      `${r.notifies}`,
      `heard on ${FLAGS_CHANNEL} by a LISTEN of the bench's, ${ms(r.notifyAfterMs)} ms after the call`,
    ],
    [
      "cohort streams that received their refetchEvaluation",
      `${r.deliveredStreams} of ${r.cohortStreams}`,
      `${r.cohortEvents} events; ${r.othersWithEvents} other streams got one (should be 0); ${r.wrongEtags} ETags differ from a bulk evaluation afterwards; ${r.endedEarly} ended early`,
    ],
    [
      "**activation → refetchEvaluation, from the commit**: p50 / p99 / max",
      `**${ms(r.fromCommit.p50)} / ${ms(r.fromCommit.p99)} / ${ms(r.fromCommit.max)} ms**`,
      "the commit: the earlier of the bench hearing the NOTIFY and the call resolving; → event parsed by the client; target p99 ≤ 1 s",
    ],
    [
      "from the call's answer",
      `${ms(r.fromAnswer.p50)} / ${ms(r.fromAnswer.p99)} / ${ms(r.fromAnswer.max)} ms`,
      "the activation call resolved in the bench → event parsed",
    ],
    [
      "from the call",
      `${ms(r.fromSend.p50)} / ${ms(r.fromSend.p99)} / ${ms(r.fromSend.max)} ms`,
      "also counts the activation itself (its transaction)",
    ],
    [
      "server CPU, call → last event",
      `${ms(r.cpuMs)} ms`,
      `${(r.cpuMs / Math.max(1, r.cohortEvents)).toFixed(3)} ms per event; process.cpuUsage, user + system`,
    ],
  ];
  return ["| measurement | value | what it is |", "|---|---:|---|", ...rows.map((c) => `| ${c.join(" | ")} |`)].join("\n");
}
