// One Db type for both drivers: postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { Logger } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres, { type Sql } from "postgres";
import { instrumentDb, type DbObserver } from "./observe.js";
import * as schema from "./schema/index.js";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** The database or an open transaction on it: what a statement that may run inside either takes. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), "migrations");

export type DbOptions = {
  /** A PostgreSQL URL; when absent the embedded PGlite in `pgliteDir` is used. */
  databaseUrl?: string | undefined;
  /** A folder, or `memory://` for a database that lives as long as the process. */
  pgliteDir?: string;
  /** Connections in the postgres.js pool. */
  maxConnections?: number;
  /** Called with every SQL statement Drizzle sends (tests count them). */
  onQuery?: (query: string, params: unknown[]) => void;
  /** Told of each statement outside a transaction and each transaction, until it settles (metrics). */
  observe?: DbObserver;
};

export type DbHandle = {
  db: Db;
  /** Applies the committed migrations (or those of another folder); safe to call on every start. */
  migrate(folder?: string): Promise<void>;
  /**
   * Calls `onPayload` for every NOTIFY on `channel`, from any connection to the database (postgres.js
   * keeps one connection of its own for all of a client's channels and re-listens after it reconnects;
   * PGlite hears its own). Resolves once listening, to the function that stops it.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
} & (
  | {
      driver: "postgres";
      /** The postgres.js pool under `db`, for libraries that send their own SQL (the shared rate-limit counts). */
      client: Sql;
    }
  | { driver: "pglite" }
);

export async function createDb(options: DbOptions): Promise<DbHandle> {
  const logger: Logger | undefined = options.onQuery
    ? { logQuery: (query, params) => options.onQuery!(query, params) }
    : undefined;

  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      // Idle connections are recycled so a restarted server is picked up again.
      idle_timeout: 30,
      connect_timeout: 10,
      // postgres.js would query the array types on every new connection and drop that promise: a
      // connection killed during it (a restarting server) became an unhandled rejection that ended the
      // process. Drizzle parses and serialises the arrays it uses (text[]) itself.
      fetch_types: false,
    });
    const db = drizzlePostgres(client, { schema, logger });
    instrumentDb(db, options.observe);
    return {
      db,
      driver: "postgres",
      client,
      migrate: (folder = migrationsFolder) => migratePostgres(db, { migrationsFolder: folder }),
      async listen(channel, onPayload) {
        const request = await client.listen(channel, onPayload);
        return () => request.unlisten();
      },
      close: () => client.end({ timeout: 5 }),
    };
  }

  const dir = options.pgliteDir ?? ".data/pglite";
  if (!dir.startsWith("memory://")) mkdirSync(dir, { recursive: true });
  // The extensions the migrations create (0006_trigram_search.sql); PostgreSQL has them in its contrib.
  const client = await PGlite.create(dir, { extensions: { pg_trgm, btree_gin } });
  const db = drizzlePglite(client, { schema, logger });
  instrumentDb(db, options.observe);
  return {
    db,
    driver: "pglite",
    migrate: (folder = migrationsFolder) => migratePglite(db, { migrationsFolder: folder }),
    listen: (channel, onPayload) => client.listen(channel, onPayload),
    close: () => client.close(),
  };
}
