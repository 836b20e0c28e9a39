// The relay of the change outbox (issue V; why the outbox exists: migration 0018 and docs/scaling.md "The
// change outbox"). Writers on PostgreSQL add a row to change_outbox instead of sending NOTIFY; the relay reads
// committed rows in batches, announces each batch with one NOTIFY per channel (more when a payload would pass
// NOTIFY's 8000-byte limit) and deletes the rows, all in one statement, so a batch is announced and removed
// together or not at all. It deletes what it read rather than remembering the last id it saw: a row whose
// transaction commits after a higher id's is simply found by a later batch, never skipped.
//
// Every instance runs a candidate; one relays at a time per database. The owner holds a session advisory
// lock on a connection of its own; when its process dies PostgreSQL ends that session and frees the lock, and
// another candidate takes it at its next try (TAKEOVER_MS). A frozen owner's idle connection is ended by
// `idle_session_timeout`. Listeners re-read state on every announcement, so an announcement sent twice (a
// relay that lost its lock mid-batch) costs a read, and nothing is lost.
import postgres, { type Options } from "postgres";

/** The relay's advisory lock: one per database (advisory locks belong to a database). */
export const RELAY_LOCK = 7_022_431_905_118;
/** The memory feed's heartbeats (server/memory/feed.ts), announced after the changes of their batch. */
const HEARTBEAT_CHANNEL = "memory_heartbeat";
/**
 * NOTIFY's payload limit is 8000 bytes. Items are packed into JSON arrays of CHUNK_BYTES (each item counted
 * with the ", " json_agg puts between items); an item is placed by where it ends, so a chunk may pass
 * CHUNK_BYTES by one item: at most LONG_ITEM_BYTES, above which an item goes out alone. An item that cannot
 * fit one NOTIFY at all (never an id the service writes) is left out.
 */
const CHUNK_BYTES = 7000;
const LONG_ITEM_BYTES = 900;
const MAX_ITEM_BYTES = 7990;

export type RelayOptions = {
  /** Pause between polls of an outbox with less than a full batch. */
  pollMs: number;
  /**
   * A longer pause once no change but memory's heartbeats has been announced for `afterMs`: each poll costs the
   * instance a round trip (~0.6 ms of CPU on a small virtual machine), and an idle relay's 50 a second were 4 %
   * of a from-memory read's CPU (issue AE). The next change still waits at most `pollMs` once one has come.
   * Absent, the relay polls every `pollMs` always.
   */
  idle?: { pollMs: number; afterMs: number };
  /** Rows announced per statement; a full batch is followed at once by the next. */
  batchSize: number;
  /** How often a candidate tries to become the relay. */
  takeoverMs: number;
  /** A batch was announced: its rows, the changes among them (rows not of memory's heartbeats), distinct items and NOTIFYs sent. */
  onBatch?(batch: RelayBatch): void;
  /**
   * The age in seconds of the oldest change not yet announced, as this instance last saw it: the relay at
   * every poll, a candidate at every try to take over (so a database without a relay shows it growing).
   */
  onLag?(seconds: number): void;
  /** This instance became, or stopped being, the relay. */
  onOwnership?(owner: boolean): void;
  onError(err: unknown): void;
};

export type RelayBatch = { rows: number; changes: number; items: number; notifies: number };

export type Relay = { stop(): Promise<void>; isOwner(): boolean };

type BatchRow = { pid: number; rows: number; changes: number; items: number; notifies: number; oldest_age: number | null };

/**
 * The pause before the next poll of an outbox that held less than a full batch: `pollMs` while changes flow,
 * `idle.pollMs` once the last change (not a heartbeat) was announced `idle.afterMs` ago or longer.
 */
export function pauseBeforeNextPoll(options: Pick<RelayOptions, "pollMs" | "idle">, sinceLastChangeMs: number): number {
  return options.idle && sinceLastChangeMs >= options.idle.afterMs ? options.idle.pollMs : options.pollMs;
}

/**
 * Starts a relay candidate on a connection of its own (`connectionOptions` as the pool's). Resolves at once;
 * the first try to become the relay runs in the background.
 */
export function startOutboxRelay(
  databaseUrl: string,
  connectionOptions: Options<Record<string, postgres.PostgresType>>,
  options: RelayOptions,
): Relay {
  const sql = postgres(databaseUrl, {
    ...connectionOptions,
    max: 1,
    idle_timeout: undefined,
    connection: {
      ...connectionOptions.connection,
      application_name: "outbox-relay",
      // A relay polls many times a second; a session idle this long belongs to a frozen process, whose lock
      // must go to another instance.
      idle_session_timeout: Math.max(5000, options.takeoverMs * 5),
    },
  });
  let running = true;
  let ownerPid: number | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const setOwner = (pid: number | undefined) => {
    const was = ownerPid !== undefined;
    ownerPid = pid;
    if (was !== (pid !== undefined)) options.onOwnership?.(pid !== undefined);
  };

  async function tryToOwn() {
    const [row] = await sql<{ held: boolean; pid: number; lag: number | null }[]>`
      select pg_try_advisory_lock(${RELAY_LOCK}) as held, pg_backend_pid() as pid,
        (select extract(epoch from now() - created_at)::float8 from change_outbox order by id limit 1) as lag`;
    options.onLag?.(Math.max(0, row?.lag ?? 0));
    if (row?.held) setOwner(row.pid);
  }

  /** Rows taken from the outbox and, of them, changes (not heartbeats). */
  async function relayBatch(): Promise<{ rows: number; changes: number }> {
    // Only on the connection that holds the lock: after a reconnect (a new backend, no lock) nothing is taken.
    const [row] = await sql<BatchRow[]>`
      with batch as (
        delete from change_outbox where id in (
          select id from change_outbox where pg_backend_pid() = ${ownerPid!}
          order by id limit ${options.batchSize} for update skip locked
        )
        returning channel, payloads, created_at
      ), items as (
        select distinct b.channel, i.item, octet_length(to_json(i.item)::text) as bytes
        from batch b, unnest(b.payloads) as i(item)
      ), sized as (
        select channel, item, bytes, sum(bytes + 2) over (partition by channel order by item) as upto
        from items where bytes <= ${LONG_ITEM_BYTES}
      ), chunks as (
        select channel, json_agg(item)::text as payload from sized group by channel, div(upto - 1, ${CHUNK_BYTES})
        union all
        select channel, json_build_array(item)::text from items where bytes > ${LONG_ITEM_BYTES} and bytes <= ${MAX_ITEM_BYTES}
      ), sent as (
        -- Heartbeats last: hearing one vouches for every change of the batch (server/memory/feed.ts).
        select count(pg_notify(channel, payload))::int as notifies
        from (select channel, payload from chunks order by channel = ${HEARTBEAT_CHANNEL}) as ordered
      )
      select pg_backend_pid() as pid, (select count(*) from batch)::int as rows,
        (select count(*) from batch where channel <> ${HEARTBEAT_CHANNEL})::int as changes, (select count(*) from items)::int as items,
        (select notifies from sent) as notifies,
        extract(epoch from now() - (select min(created_at) from batch))::float8 as oldest_age`;
    if (!row || row.pid !== ownerPid) {
      setOwner(undefined);
      return { rows: 0, changes: 0 };
    }
    options.onLag?.(Math.max(0, row.oldest_age ?? 0));
    if (row.rows > 0) options.onBatch?.({ rows: row.rows, changes: row.changes, items: row.items, notifies: row.notifies });
    return { rows: row.rows, changes: row.changes };
  }

  // A new relay polls often at first: a backlog may be waiting.
  let lastChangeAt = Date.now();
  const loop = (async () => {
    while (running) {
      try {
        if (ownerPid === undefined) await tryToOwn();
        if (ownerPid === undefined) {
          await pause(options.takeoverMs);
          continue;
        }
        const { rows, changes } = await relayBatch();
        if (!running) break;
        if (changes > 0) lastChangeAt = Date.now();
        if (rows < options.batchSize) {
          await pause(ownerPid === undefined ? options.takeoverMs : pauseBeforeNextPoll(options, Date.now() - lastChangeAt));
        }
      } catch (err) {
        // The connection broke (its lock went with it) or the statement failed: start over as a candidate.
        setOwner(undefined);
        if (running) options.onError(err);
        if (running) await pause(options.takeoverMs);
      }
    }
  })();

  return {
    isOwner: () => ownerPid !== undefined,
    async stop() {
      running = false;
      wake?.();
      await loop;
      setOwner(undefined);
      // Ending the session frees the lock for another instance at once.
      await sql.end({ timeout: 5 });
    },
  };
}
