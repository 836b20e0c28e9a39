// The database's types, apart from the client that opens it, so the modules the client itself uses
// (observe.ts) can name them without importing the client.
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema/index.js";

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** The database or an open transaction on it: what a statement that may run inside either takes. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];
