// The write-ceiling's set-up (bench/write-ceiling.ts): its result types, constants, the versions of announce(), the seed and the database reads.
import type postgres from "postgres";
import { SESSION_LIFETIME } from "../server/auth/better-auth.js";
import type { BenchDatabase } from "./database.js";
import type { Timing } from "./inprocess.js";
import type { LoadResult } from "./load.js";
import { ADMIN_EMAIL, seedPros } from "./seed.js";

export type WriteCeilingShape = {
  users: number;
  /** Unread notifications seeded per user: enough for every run, never marked twice. */
  notificationsPerUser: number;
  /** autocannon connections: all on the floor; half on each product instance. */
  connections: number;
  duration: number;
  warmup: number;
  /** Pros of the cohort activated once with the outbox on. */
  cohortSize: number;
  floorEnv: Record<string, string>;
  cpuProfDir?: string;
};

/** What `announce` does during a run. */
export type AnnounceMode = "none" | "notify" | "outbox";

export type CeilingRun = LoadResult & {
  target: string;
  server: "floor" | "product";
  announce: AnnounceMode;
  instances: number;
  /** Each instance's answers per second (the run's rps is their sum). */
  rpsPerInstance: number[];
  /** Unread counts lowered in the database over the run, warm-up and the check request included (one per commit). */
  changes: number;
};

export type Delivery = {
  announce: AnnounceMode;
  streams: number;
  /** Unread counts lowered in the database over the run (warm-up included). */
  changes: number;
  /** Answers recorded (2xx), whose latency is measured. */
  answered: number;
  usersChanged: number;
  usersWithEvents: number;
  /** Users whose count changed and whose stream received nothing (must be 0). */
  usersChangedWithoutEvent: number;
  events: number;
  /** Users whose stream's last count (or its count on connect when none came) is not the database's count (must be 0). */
  wrongFinal: number;
  wrongSamples: string[];
  /** HTTP answer → first event carrying that change's count or lower (clamped at 0). */
  latency: Timing;
  /** Answered changes whose count never reached the stream. */
  unmatched: number;
  /** The bench's own LISTEN on unread_count over the run and its settling. */
  notifies: number;
  notifiedItems: number;
  maxItemsPerNotify: number;
  /** The outbox run: rows waiting and the oldest's age, sampled every OUTBOX_SAMPLE_MS. */
  outbox: { samples: number; maxRows: number; maxLagSeconds: number; rowsAtEnd: number } | null;
  /** From the end of the load to the report (outbox empty, then SETTLE_MS). */
  settleMs: number;
  endedEarly: number;
};

export type CohortCheck = {
  pros: number;
  /** NOTIFYs heard on restriction_flags from the call until 2 s after its answer, and their payloads. */
  notifies: number;
  payloads: string[];
  activationMs: number;
  /** Call → the first NOTIFY heard. */
  heardAfterMs: number;
};

/**
 * One statement lowering every user's count at once (as raw SQL or a seed writes): one outbox row naming
 * every user, announced by the relay in one batch. Every stream must show the database's count after it.
 */
export type WideCheck = {
  users: number;
  /** Streams whose last count is the database's WIDE_WAIT_MS after the commit. */
  streamsRight: number;
  /** Outbox rows still waiting then (the relay could not announce them). */
  outboxRowsLeft: number;
  /** NOTIFYs heard on unread_count meanwhile, and the ids they carried. */
  notifies: number;
  notifiedItems: number;
};

export type WriteCeilingResult = {
  shape: Omit<WriteCeilingShape, "floorEnv" | "cpuProfDir">;
  runs: CeilingRun[];
  deliveries: Delivery[];
  cohort: CohortCheck | null;
  wide: WideCheck | null;
  /** Requests that found their user's notifications used up (marked an already-read one): 0 unless the seed was short. */
  exhausted: number;
};

export const USER_PREFIX = "wc-user-";
export const OPEN_CONCURRENCY = 50;
export const OPEN_TIMEOUT_MS = 180_000;
export const SETTLE_MS = 2_000;
export const OUTBOX_DRAIN_TIMEOUT_MS = 20_000;
export const OUTBOX_SAMPLE_MS = 200;
export const WIDE_WAIT_MS = 3_000;
export const ADMIN = { id: "bench-ceiling-admin", name: "bench-admin", email: ADMIN_EMAIL, role: "admin" };
export const WHAT: Record<AnnounceMode, string> = {
  none: "no announcement",
  notify: "NOTIFY at commit (before V)",
  outbox: "outbox + relay (V)",
};

export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The versions of `announce` the bench switches between; `outbox` is the migration's own, read back at the start. */
export const ANNOUNCE_SQL: Record<Exclude<AnnounceMode, "outbox">, string> = {
  none: `create or replace function announce(channel text, payloads text[]) returns int language plpgsql as $$
    begin return 0; end $$`,
  notify: `create or replace function announce(channel text, payloads text[]) returns int language plpgsql as $$
    begin
      perform pg_notify(channel, json_build_array(item)::text) from unnest(payloads) as item;
      return coalesce(cardinality(payloads), 0);
    end $$`,
};

/** Notifications each user needs: every run at up to `maxRate` commits/s, with a margin. */
export function notificationsPerUser(runs: number, seconds: number, users: number, maxRate = 5000): number {
  return Math.max(50, Math.ceil((runs * seconds * maxRate) / users));
}

export type Seeded = { userIds: string[]; tokens: string[]; unread: string[][]; cohortId: string };

/** Users, one session each, `perUser` unread notifications each (one INSERT), one cohort of pros, an admin. */
export async function seed(db: BenchDatabase, users: number, perUser: number, cohortSize: number): Promise<Seeded> {
  const sql = db.sql;
  await sql`
    insert into users (id, name, email)
    select ${USER_PREFIX} || lpad(i::text, 4, '0'), 'Ceiling user ' || i, 'ceiling-' || i || '@bench.test'
    from generate_series(0, ${users - 1}::int) i`;
  // The table keeps each token's SHA-256 (server/auth/hashed-session-tokens.ts); the raw tokens are the callers'.
  const sessions = await sql<{ userId: string; token: string }[]>`
    with raw as (
      select i, ${USER_PREFIX} || lpad(i::text, 4, '0') as user_id, md5(random()::text || i) as token
      from generate_series(0, ${users - 1}::int) i
    ), made as (
      insert into sessions (id, token, user_id, expires_at)
      select 'wc-session-' || i, encode(sha256(convert_to(token, 'UTF8')), 'hex'), user_id,
             now() + make_interval(secs => ${SESSION_LIFETIME.expiresInSeconds}::int)
      from raw
    )
    select user_id as "userId", token from raw order by i`;
  await sql`
    insert into notifications (user_id, event_type, category, title, body)
    select ${USER_PREFIX} || lpad(u::text, 4, '0'), 'message.received', 'messages', 'Bench: message ' || n, 'Something to read'
    from generate_series(1, ${perUser}::int) n cross join generate_series(0, ${users - 1}::int) u`;
  const rows = await sql<{ user_id: string; id: string }[]>`
    select user_id, id from notifications where user_id like ${`${USER_PREFIX}%`} order by user_id, date_created, id`;
  const index = new Map(sessions.map((s, i) => [s.userId, i]));
  const unread: string[][] = sessions.map(() => []);
  for (const r of rows) unread[index.get(r.user_id)!]!.push(r.id);
  await sql`insert into users (id, name, email, role) values (${ADMIN.id}, ${ADMIN.name}, ${ADMIN.email}, ${ADMIN.role})`;
  const { cohortIds } = await seedPros(sql, { pros: cohortSize, cohortSize });
  await sql.unsafe("vacuum (analyze)");
  return { userIds: sessions.map((s) => s.userId), tokens: sessions.map((s) => s.token), unread, cohortId: cohortIds[0]! };
}

export async function unreadCounts(sql: postgres.Sql): Promise<Map<string, number>> {
  const rows = await sql<{ user_id: string; unread: number }[]>`
    select user_id, coalesce(sum(unread), 0)::int as unread from notification_counts
    where user_id like ${`${USER_PREFIX}%`} group by user_id`;
  return new Map(rows.map((r) => [r.user_id, r.unread]));
}

export const totalOf = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

export async function outboxRows(sql: postgres.Sql): Promise<{ rows: number; lag: number }> {
  const [row] = await sql<{ rows: number; lag: number }[]>`
    select count(*)::int as rows, coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as lag from change_outbox`;
  return row!;
}
