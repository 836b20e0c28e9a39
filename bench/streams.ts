// `npm run bench -- --only=streams`: what one instance pays for open live unread-count streams, and how fast
// a burst of changes reaches them. One product process (with --expose-gc, so its heap can be measured after
// a forced collection) on a fresh database; the SSE clients in another process (bench/stream-clients.ts);
// users and sessions inserted directly (no password hashing); the changes are plain INSERTs, each its own
// transaction, so the notifications triggers (migration 0007) announce them exactly as they announce the product's own writes.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { SESSION_LIFETIME } from "../server/auth/better-auth.js";
import type { BenchDatabase } from "./database.js";
import { summarize, type Timing } from "./inprocess.js";
import type { Verdict } from "./report.js";
import { type ProbeAnswer, type RunningServer, startServer } from "./servers.js";
import type { ClientCommand, ClientMessage, ClientStream, StreamReport } from "./stream-clients.js";

export type StreamsShape = { users: number; streamsPerUser: number; changedUsers: number };

export type StreamsResult = {
  shape: StreamsShape;
  streams: number;
  openMs: number;
  heapBefore: number;
  heapOpen: number;
  heapClosed: number;
  rssBefore: number;
  rssOpen: number;
  /** Users changed (one INSERT each) and the time from the first INSERT sent to the last event received. */
  changes: number;
  burstMs: number;
  /** Change → arrival, from the commit's acknowledgement and from the moment the INSERT was sent. */
  fromCommit: Timing;
  fromSend: Timing;
  affectedStreams: number;
  deliveredStreams: number;
  eventsDelivered: number;
  unaffectedWithEvents: number;
  wrongCounts: number;
  endedEarly: number;
  cpuMs: number;
};

const OPEN_CONCURRENCY = 50;
const OPEN_TIMEOUT_MS = 180_000;
const DELIVERY_TIMEOUT_MS = 10_000;
const SETTLE_MS = 1_000;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cpuMs = (a: ProbeAnswer, b: ProbeAnswer) => (b.cpu.user - a.cpu.user + b.cpu.system - a.cpu.system) / 1000;

/** Users `stream-user-00001…` with `streamsPerUser` sessions each (one per stream, as two devices would have). */
async function seedStreamUsers(db: BenchDatabase, shape: StreamsShape): Promise<Extract<ClientStream, { kind: "unread-count" }>[]> {
  await db.sql`
    insert into users (id, name, email)
    select 'stream-user-' || lpad(i::text, 5, '0'), 'Stream user ' || i, 'stream-' || i || '@bench.test'
    from generate_series(1, ${shape.users}::int) i`;
  // The table keeps each token's SHA-256 (server/auth/hashed-session-tokens.ts); the raw tokens are the clients'.
  const rows = await db.sql<{ userId: string; token: string }[]>`
    with raw as (
      select u, s, 'stream-user-' || lpad(u::text, 5, '0') as user_id, md5(random()::text || u || '-' || s) as token
      from generate_series(1, ${shape.users}::int) u cross join generate_series(1, ${shape.streamsPerUser}::int) s
    ), made as (
      insert into sessions (id, token, user_id, expires_at)
      select 'stream-session-' || u || '-' || s, encode(sha256(convert_to(token, 'UTF8')), 'hex'), user_id,
             now() + make_interval(secs => ${SESSION_LIFETIME.expiresInSeconds}::int)
      from raw
    )
    select user_id as "userId", token from raw order by u, s`;
  await db.sql.unsafe("vacuum (analyze)");
  return rows.map((r) => ({ kind: "unread-count" as const, follows: r.userId, token: r.token }));
}

/** The clients' process and a way to wait for its next answer of a kind (null when it does not come in time). */
export function startClients() {
  const child: ChildProcess = fork(fileURLToPath(new URL("./stream-clients.ts", import.meta.url)), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let exited = false;
  child.once("exit", () => (exited = true));
  const answer = <T extends ClientMessage["type"]>(type: T, timeoutMs: number) =>
    new Promise<Extract<ClientMessage, { type: T }> | null>((resolve, reject) => {
      const done = (value: Extract<ClientMessage, { type: T }> | null, err?: Error) => {
        clearTimeout(timer);
        child.off("message", onMessage).off("exit", onExit);
        if (err) reject(err);
        else resolve(value);
      };
      const onMessage = (m: ClientMessage) => m.type === type && done(m as Extract<ClientMessage, { type: T }>);
      const onExit = (code: number | null) => done(null, new Error(`stream clients exited (code ${code}) before "${type}"`));
      const timer = setTimeout(() => done(null), timeoutMs);
      child.on("message", onMessage).once("exit", onExit);
    });
  return {
    send: (command: ClientCommand) => child.send(command),
    answer,
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => child.once("exit", r));
      if (child.connected) child.send({ type: "close" } satisfies ClientCommand);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await gone;
      clearTimeout(timer);
    },
  };
}

/** Writers' connections: as many as one instance's pool, so commits overlap as they would under real writes. */
const BURST_CONNECTIONS = 10;

/** Each changed user's notification, inserted as its own transaction, all fired at once. */
async function burst(db: BenchDatabase, userIds: string[]) {
  const sql = postgres(db.url, { max: BURST_CONNECTIONS, onnotice: () => {} });
  try {
    // Connected before the clock starts: the burst times commits, not connection set-up.
    await Promise.all(Array.from({ length: BURST_CONNECTIONS }, () => sql`select pg_sleep(0.05)`));
    const sent = new Map<string, number>();
    const committed = new Map<string, number>();
    await Promise.all(
      userIds.map((userId) => {
        sent.set(userId, now());
        return sql`
          insert into notifications (user_id, event_type, category, title)
          values (${userId}, 'message.received', 'messages', 'Bench: a new message')`.then(() => void committed.set(userId, now()));
      }),
    );
    return { sent, committed };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function measureStreams(
  db: BenchDatabase,
  env: Record<string, string>,
  shape: StreamsShape,
  log: (message: string) => void,
): Promise<StreamsResult> {
  const targets = await seedStreamUsers(db, shape);
  log(`streams: ${shape.users} users × ${shape.streamsPerUser} sessions inserted; starting the product with --expose-gc`);
  let server: RunningServer | undefined;
  const clients = startClients();
  try {
    server = await startServer("product", "./product-server.ts", env, { execArgv: ["--expose-gc"] });
    // Warm-up: the pool's connections and the session and count paths exist before the baseline.
    await Promise.all(
      targets.slice(0, 20).map(({ token }) =>
        fetch(`${server!.origin}/api/notifications/unread-count`, {
          headers: { authorization: `Bearer ${token}`, connection: "close" },
        }).then((r) => r.text()),
      ),
    );
    await sleep(SETTLE_MS);
    const before = await server.probe({ gc: true });
    if (!before.collected) throw new Error("the product was not started with --expose-gc");

    log(`streams: opening ${targets.length} streams (${OPEN_CONCURRENCY} at a time)`);
    clients.send({ type: "open", origin: server.origin, streams: targets, concurrency: OPEN_CONCURRENCY, timeoutMs: OPEN_TIMEOUT_MS });
    const opened = await clients.answer("opened", OPEN_TIMEOUT_MS + 10_000);
    if (!opened || opened.ok !== targets.length) {
      throw new Error(`opened ${opened?.ok ?? 0} of ${targets.length} streams: ${opened?.failures.join("; ") ?? "no answer"}`);
    }
    log(`streams: ${opened.ok} open after ${(opened.ms / 1000).toFixed(1)} s`);
    await sleep(SETTLE_MS);
    const open = await server.probe({ gc: true });

    const step = Math.max(1, Math.floor(shape.users / shape.changedUsers));
    const changed = [...new Set(targets.map((t) => t.follows))].filter((_, i) => i % step === 0).slice(0, shape.changedUsers);
    clients.send({ type: "expect", follows: changed });
    log(`streams: one INSERT each for ${changed.length} users, fired at once`);
    const cpuBefore = await server.probe({ gc: false });
    const started = now();
    const { sent, committed } = await burst(db, changed);
    const delivered = await clients.answer("delivered", DELIVERY_TIMEOUT_MS);
    const burstMs = now() - started;
    const cpuAfter = await server.probe({ gc: false });
    if (!delivered) log(`streams: not every affected stream had its event ${DELIVERY_TIMEOUT_MS / 1000} s after the burst`);

    clients.send({ type: "report" });
    const report = await clients.answer("report", 30_000);
    if (!report) throw new Error("the stream clients did not report");
    await clients.stop();
    await sleep(SETTLE_MS * 2);
    const closed = await server.probe({ gc: true });
    return {
      shape,
      streams: targets.length,
      openMs: opened.ms,
      heapBefore: before.heapUsed,
      heapOpen: open.heapUsed,
      heapClosed: closed.heapUsed,
      rssBefore: before.rss,
      rssOpen: open.rss,
      changes: changed.length,
      burstMs,
      cpuMs: cpuMs(cpuBefore, cpuAfter),
      endedEarly: report.ended,
      ...arrivals(report.streams, new Set(changed), sent, committed),
    };
  } finally {
    await clients.stop();
    await server?.stop();
  }
}

/** Each affected stream's first event after connect against its user's change; streams of others get none. */
function arrivals(streams: StreamReport[], changed: Set<string>, sent: Map<string, number>, committed: Map<string, number>) {
  const fromCommit: number[] = [];
  const fromSend: number[] = [];
  let affectedStreams = 0;
  let unaffectedWithEvents = 0;
  let wrongCounts = 0;
  let eventsDelivered = 0;
  for (const s of streams) {
    eventsDelivered += s.events.length;
    if (!changed.has(s.follows)) {
      if (s.events.length) unaffectedWithEvents++;
      continue;
    }
    affectedStreams++;
    const first = s.events[0];
    if (!first) continue;
    if (first[0] !== 1) wrongCounts++;
    fromCommit.push(first[1] - committed.get(s.follows)!);
    fromSend.push(first[1] - sent.get(s.follows)!);
  }
  return {
    fromCommit: summarize(fromCommit),
    fromSend: summarize(fromSend),
    affectedStreams,
    deliveredStreams: fromCommit.length,
    eventsDelivered,
    unaffectedWithEvents,
    wrongCounts,
  };
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const ms = (n: number) => n.toFixed(1);

export function streamsVerdicts(r: StreamsResult): Verdict[] {
  const perStream = (r.heapOpen - r.heapBefore) / r.streams;
  return [
    { target: "heap per idle stream ≤ 20 KB", met: perStream <= 20 * 1024, detail: `${kb(perStream)} KB (${r.streams} streams)` },
    {
      target: "every affected stream receives its event",
      met: r.deliveredStreams === r.affectedStreams && r.wrongCounts === 0,
      detail: `${r.deliveredStreams} of ${r.affectedStreams}${r.wrongCounts ? `, ${r.wrongCounts} with a wrong count` : ""}`,
    },
    {
      // A change exists once it commits (NOTIFY is delivered at commit); the wait before it is the database's.
      target: "every event within 1 s of its change (commit)",
      met: r.deliveredStreams === r.affectedStreams && r.fromCommit.max <= 1000,
      detail: `max ${ms(r.fromCommit.max)} ms after the commit (${ms(r.fromSend.max)} ms after the INSERT was sent)`,
    },
  ];
}

export function streamsTable(r: StreamsResult): string {
  const { users, streamsPerUser } = r.shape;
  const rows: [string, string, string][] = [
    [
      "streams open",
      `${r.streams} (${users} users × ${streamsPerUser})`,
      `opened ${OPEN_CONCURRENCY} at a time in ${(r.openMs / 1000).toFixed(1)} s, each with its first event`,
    ],
    [
      "server heap before / with streams / after they closed",
      `${mb(r.heapBefore)} / ${mb(r.heapOpen)} / ${mb(r.heapClosed)} MB`,
      "V8 heapUsed after a forced GC (twice)",
    ],
    ["**heap per idle stream**", `**${kb((r.heapOpen - r.heapBefore) / r.streams)} KB**`, `(with − before) / ${r.streams}; target ≤ 20 KB`],
    [
      "server RSS per idle stream",
      `${kb((r.rssOpen - r.rssBefore) / r.streams)} KB`,
      "resident memory, socket buffers outside the heap included (informational)",
    ],
    ["changes", `${r.changes}`, "one INSERT per user, each its own transaction, all fired at once"],
    [
      "affected streams that received their event",
      `${r.deliveredStreams} of ${r.affectedStreams}`,
      `${r.wrongCounts} with a wrong count; ${r.unaffectedWithEvents} other streams got an event (should be 0); ${r.endedEarly} ended early`,
    ],
    [
      "**change → event, from the commit**: p50 / p99 / max",
      `**${ms(r.fromCommit.p50)} / ${ms(r.fromCommit.p99)} / ${ms(r.fromCommit.max)} ms**`,
      "commit acknowledged to the bench → event parsed by the client; target ≤ 1 s",
    ],
    [
      "change → event, from sending the INSERT",
      `${ms(r.fromSend.p50)} / ${ms(r.fromSend.p99)} / ${ms(r.fromSend.max)} ms`,
      `also counts each INSERT's wait for one of the writers' ${BURST_CONNECTIONS} connections and its commit (the database's commit rate, not the product)`,
    ],
    [
      "burst, first INSERT sent → last event",
      `${ms(r.burstMs)} ms`,
      `${r.changes} commits and their events: ${((r.changes * 1000) / r.burstMs).toFixed(0)} changes/s end to end`,
    ],
    [
      "server CPU over the burst",
      `${ms(r.cpuMs)} ms`,
      `${(r.cpuMs / r.changes).toFixed(2)} ms per change, ${(r.cpuMs / Math.max(1, r.eventsDelivered)).toFixed(2)} ms per event (${r.eventsDelivered} events); process.cpuUsage, user + system`,
    ],
  ];
  return ["| measurement | value | what it is |", "|---|---:|---|", ...rows.map((c) => `| ${c.join(" | ")} |`)].join("\n");
}
