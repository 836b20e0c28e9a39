// Retention (docs/operators.md#retention): producer events and push deliveries (the messages' titles and bodies with
// them) are deleted RETENTION_DAYS after they were made, whatever became of them. Every instance runs the job;
// each batch takes only rows no other pruner holds (FOR UPDATE SKIP LOCKED), so N instances share the work
// and none waits on another or fails for it. A user's rows go with the user (foreign keys, migration 0015).
import { sql } from "drizzle-orm";
import { rowsOf } from "../../db/arrays.js";
import type { Db } from "../../db/client.js";

export const DEFAULT_RETENTION_DAYS = 30;
/** Rows deleted per statement: short transactions, whatever the backlog. */
const BATCH = 1000;
const HOUR_MS = 60 * 60_000;

export type Pruned = { events: number; deliveries: number };

/** Deletes what was made more than `days` before `now`, in batches; answers how many rows of each. */
export async function pruneOnce(db: Db, options: { days: number; now?: Date; batchSize?: number }): Promise<Pruned> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - options.days * 24 * HOUR_MS).toISOString();
  const batchSize = options.batchSize ?? BATCH;
  const deliveries = await inBatches(
    batchSize,
    () => sql`
      with gone as (
        delete from push_deliveries where id in (
          select id from push_deliveries where created_at < ${cutoff}::timestamptz
          order by created_at limit ${batchSize} for update skip locked)
        returning 1)
      select count(*)::int as n from gone`,
    db,
  );
  const events = await inBatches(
    batchSize,
    () => sql`
      with gone as (
        delete from notification_events where (producer, event_id) in (
          select producer, event_id from notification_events where created_at < ${cutoff}::timestamptz
          order by created_at limit ${batchSize} for update skip locked)
        returning 1)
      select count(*)::int as n from gone`,
    db,
  );
  return { events, deliveries };
}

/** Runs one batch statement until a batch comes back short (nothing older left, or the rest held by another pruner). */
async function inBatches(batchSize: number, statement: () => ReturnType<typeof sql>, db: Db): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = rowsOf<{ n: number }>(await db.execute(statement()));
    const n = Number(row?.n ?? 0);
    total += n;
    if (n < batchSize) return total;
  }
}

export type RetentionJob = {
  /** Stops the job; resolves once a run in progress has ended. */
  stop(): Promise<void>;
};

export type RetentionOptions = {
  db: Db;
  /** RETENTION_DAYS. */
  days: number;
  /** Between runs (an hour). */
  everyMs?: number;
  /** Before the first run (a minute: start-up and its migrations come first). */
  firstRunMs?: number;
  batchSize?: number;
  /** The clock (tests set it). */
  now?: () => Date;
  onPruned?(pruned: Pruned): void;
  onError(err: unknown): void;
};

/** Prunes now and then until stopped; a failed run is reported and the next one comes as planned. */
export function startRetention(options: RetentionOptions): RetentionJob {
  const everyMs = options.everyMs ?? HOUR_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  function schedule(ms: number) {
    if (stopped) return;
    timer = setTimeout(run, ms);
    // A process with nothing else to do may exit: the job never keeps it alive.
    timer.unref();
  }
  function run() {
    running = pruneOnce(options.db, { days: options.days, now: options.now?.(), batchSize: options.batchSize })
      .then((pruned) => options.onPruned?.(pruned), options.onError)
      .finally(() => {
        running = null;
        schedule(everyMs);
      });
  }
  schedule(options.firstRunMs ?? 60_000);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
