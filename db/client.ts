// One Db type for both drivers: postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { Logger } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres, { type Sql } from "postgres";
import { boundedConnection, boundedSql, markCommitsCanBeLost } from "./deadline.js";
import { lockPgliteFolder } from "./folder-lock.js";
import { type DbObserver, instrumentDb } from "./observe.js";
import { type Relay, type RelayOptions, startOutboxRelay } from "./outbox-relay.js";
import { projectRoot } from "./project-root.js";
import * as schema from "./schema/index.js";
import type { Db, DbOrTx, Schema } from "./types.js";

export type { Db, DbOrTx, Schema };

export const migrationsFolder = join(projectRoot, "db", "migrations");

export type DbOptions = {
  /** A PostgreSQL URL; when absent the embedded PGlite in `pgliteDir` is used. */
  databaseUrl?: string | undefined;
  /** A folder, or `memory://` for a database that lives as long as the process. */
  pgliteDir?: string;
  /** PGlite: a dump of a data folder to start from (`dumpDataDir`), as tests start from a migrated one. */
  pgliteLoadDataDir?: Blob;
  /** Connections in the postgres.js pool (DB_POOL_SIZE); DEFAULT_POOL_SIZE when absent. */
  maxConnections?: number | undefined;
  /** Called with every SQL statement Drizzle sends (tests count them). */
  onQuery?: (query: string, params: unknown[]) => void;
  /** Told of each statement outside a transaction and each transaction, until it settles (metrics). */
  observe?: DbObserver;
  /**
   * PostgreSQL only: the deadline of a statement outside a transaction, or of a whole transaction, from when
   * it is issued (db/deadline.ts). Past it the work is cancelled and rolled back, and fails with QUERY_TIMEOUT
   * (503 to the caller). Default DEFAULT_QUERY_TIMEOUT_SECONDS.
   */
  queryTimeoutSeconds?: number;
};

/** Connections in one instance's pool unless DB_POOL_SIZE says otherwise (docs/scaling.md, "Connections"). */
export const DEFAULT_POOL_SIZE = 10;
/** How long postgres.js waits for a new connection to be accepted. */
export const CONNECT_TIMEOUT_SECONDS = 10;
/** A few seconds above CONNECT_TIMEOUT_SECONDS (issue R): a live server answers this service's statements in milliseconds. */
export const DEFAULT_QUERY_TIMEOUT_SECONDS = CONNECT_TIMEOUT_SECONDS + 5;
/** How long past the deadline the driver waits for a cancelled statement's answer before it gives the connection up. */
const DRIVER_GRACE_SECONDS = 2;

/**
 * Seconds before a closed connection is opened again, after `failures` failed ones in a row (pool-wide).
 * postgres.js's own back-off grows to 20 s, so after an outage of a few dozen terminated connections a
 * request waited up to 20 s for a database that was back long before; this one stays under 2 s.
 */
export const reconnectDelaySeconds = (failures: number) => Math.min(0.05 * 2 ** failures, 2) * (0.5 + Math.random() / 2);

export type DbHandle = {
  db: Db;
  /** Applies the committed migrations (or those of another folder); safe to call on every start. */
  migrate(folder?: string): Promise<void>;
  /**
   * Calls `onPayload` for every NOTIFY on `channel`, from any connection to the database (postgres.js
   * keeps one connection of its own for all of a client's channels and re-listens after it reconnects;
   * PGlite hears its own). Resolves once listening, to the function that stops it. `onRelisten` is called
   * each time listening resumes after that connection was lost: NOTIFYs sent meanwhile were missed.
   */
  listen(channel: string, onPayload: (payload: string) => void, onRelisten?: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
} & (
  | {
      driver: "postgres";
      /** The postgres.js pool under `db`, for libraries that send their own SQL (the shared rate-limit counts). */
      client: Sql;
      /**
       * Starts this instance's candidate for relaying the change outbox (db/outbox-relay.ts): writers on
       * PostgreSQL only record their changes, and without a relay no listener hears of them.
       */
      startRelay(options: RelayOptions): Relay;
    }
  | {
      driver: "pglite";
      /** The data folder as a tarball, which `pgliteLoadDataDir` starts from. */
      dumpDataDir(): Promise<Blob>;
    }
);

/**
 * PGlite announces each change with NOTIFY at once, in-process, as PostgreSQL did before the change outbox:
 * one process has no commit flush to share and nobody to relay to (migration 0018's `announce()`).
 */
const announceAtOnce = ["-c", "rn.announce=notify"];

/**
 * PGlite's own start parameters, and a smaller shared_buffers. initdb writes PostgreSQL's default of
 * 128MB, and PGlite touches all of it in its WASM memory at start: ~110 MB of the ~410 MB a restarted
 * `npm start` held when ready (bench/pglite-memory.ts). At 32MB, ~95 MB of that comes back. Behind the
 * pool the data folder's files stay in the operating system's page cache, so a miss is mostly a read()
 * served from memory: random lookups over a 133 MB database cost ~10% more CPU per query than at 128MB
 * (16MB: ~30%); a database that fits in the pool costs nothing more. Durability is unchanged: no WAL,
 * fsync or commit setting differs from PGlite's own.
 */
const pgliteStartParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=32MB", ...announceAtOnce];

/**
 * Creates the database of a new data folder in a child process. PGlite runs initdb in a second, temporary
 * WASM instance and copies its heap: ~430 MB that is garbage once the folder exists, but that V8 kept
 * resident, so a server started on a new folder held ~880 MB for as long as it ran, idle or not, against
 * ~410 MB after a restart (bench/pglite-memory.ts). The child gives all of it back when it exits; the
 * first start costs ~1.5 s more CPU. An existing folder is left alone.
 */
async function createPgliteFolder(dir: string): Promise<void> {
  if (existsSync(join(dir, "PG_VERSION"))) return;
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const script = `const [pglite, dir, startParams] = process.argv.slice(1);
    require(pglite).PGlite.create(dir, { startParams: JSON.parse(startParams) })
      .then((pg) => pg.close())
      .catch((err) => { console.error(err instanceof Error ? err.message : err); process.exit(1); });`;
  try {
    await promisify(execFile)(process.execPath, ["-e", script, "--", pglite, dir, JSON.stringify(pgliteStartParams)]);
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr?.trim();
    throw new Error(`PGlite could not create a database in ${dir}: ${stderr || (err as Error).message}`);
  }
}

export async function createDb(options: DbOptions): Promise<DbHandle> {
  const logger: Logger | undefined = options.onQuery ? { logQuery: (query, params) => options.onQuery!(query, params) } : undefined;

  if (options.databaseUrl) {
    const databaseUrl = options.databaseUrl;
    const queryTimeoutSeconds = options.queryTimeoutSeconds ?? DEFAULT_QUERY_TIMEOUT_SECONDS;
    // What every connection of this database takes, the pool's and the migrations' alike.
    const connection = {
      onnotice: () => {},
      connect_timeout: CONNECT_TIMEOUT_SECONDS,
      // postgres.js would query the array types on every new connection and drop that promise: a
      // connection killed during it (a restarting server) became an unhandled rejection that ended the
      // process. Drizzle parses and serialises the arrays it uses (text[]) itself.
      fetch_types: false,
    };
    const timeoutMs = queryTimeoutSeconds * 1000;
    const client = postgres(databaseUrl, {
      ...connection,
      // PostgreSQL's own bound on each statement and on a transaction left idle, so the server ends the
      // work even when this process, or its network, is gone (db/deadline.ts).
      connection: boundedConnection(timeoutMs),
      max: options.maxConnections ?? DEFAULT_POOL_SIZE,
      // Idle connections are recycled so a restarted server is picked up again.
      idle_timeout: 30,
      backoff: reconnectDelaySeconds,
      // patches/postgres+3.4.9.patch: a statement with no answer in time fails and its connection is
      // replaced, so no request waits on a connection that will never answer. A few seconds past the
      // deadline: a server that answers cancels the work itself first (57014), which says nothing was written.
      query_timeout: queryTimeoutSeconds + DRIVER_GRACE_SECONDS,
    });
    // An unpatched postgres.js drops the option silently and can leave requests waiting forever.
    if ((client.options as { query_timeout?: unknown }).query_timeout !== queryTimeoutSeconds + DRIVER_GRACE_SECONDS) {
      throw new Error("postgres.js runs without patches/postgres+3.4.9.patch: run `npm install` (patch-package applies it)");
    }
    const db = drizzlePostgres(boundedSql(client, timeoutMs), { schema, logger });
    instrumentDb(db, options.observe);
    markCommitsCanBeLost(db);
    return {
      db,
      driver: "postgres",
      client,
      // On a connection of its own without the statement bound: a migration may rightly take minutes.
      async migrate(folder = migrationsFolder) {
        const migrator = postgres(databaseUrl, { ...connection, max: 1 });
        try {
          await migratePostgres(drizzlePostgres(migrator, { schema, logger }), { migrationsFolder: folder });
        } finally {
          await migrator.end({ timeout: 5 });
        }
      },
      async listen(channel, onPayload, onRelisten) {
        // postgres.js calls its onlisten at the first LISTEN and again at each one after a reconnect.
        let listening = false;
        const request = await client.listen(channel, onPayload, () => {
          if (listening) onRelisten?.();
          listening = true;
        });
        return () => request.unlisten();
      },
      startRelay: (relayOptions) =>
        startOutboxRelay(databaseUrl, { ...connection, connection: boundedConnection(timeoutMs) }, relayOptions),
      close: () => client.end({ timeout: 5 }),
    };
  }

  const dir = options.pgliteDir ?? ".data/pglite";
  // Before anything touches the folder: another process holding it stops this one here (db/folder-lock.ts).
  const unlock = lockPgliteFolder(dir);
  if (!dir.startsWith("memory://")) {
    mkdirSync(dir, { recursive: true });
    await createPgliteFolder(dir);
  }
  // The extensions the migrations create (0006_trigram_search.sql); PostgreSQL has them in its contrib.
  const client = await PGlite.create(dir, {
    startParams: pgliteStartParams,
    extensions: { pg_trgm, btree_gin },
    loadDataDir: options.pgliteLoadDataDir,
  });
  const db = drizzlePglite(client, { schema, logger });
  instrumentDb(db, options.observe);
  return {
    db,
    driver: "pglite",
    migrate: (folder = migrationsFolder) => migratePglite(db, { migrationsFolder: folder }),
    listen: (channel, onPayload) => client.listen(channel, onPayload),
    dumpDataDir: () => client.dumpDataDir("none"),
    close: () => client.close().finally(unlock),
  };
}
