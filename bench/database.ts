// A fresh, migrated database for one benchmark run, created on the configured server and dropped at the end.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { createDb } from "../db/client.js";

export type BenchDatabase = {
  name: string;
  url: string;
  /** A postgres.js client on the bench database for seeding and EXPLAIN (not used by the servers). */
  sql: postgres.Sql;
  drop(): Promise<void>;
};

const PREFIX = "rn_bench_";

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const host = new URL(serverUrl).hostname;
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) {
    throw new Error(`BENCH_DATABASE_URL must point at loopback (127.0.0.1), not ${host}`);
  }
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  // Databases of an earlier run that was killed before it could drop them (nobody is connected to them).
  const stale = await admin<{ datname: string }[]>`
    select datname from pg_database d
    where datname like ${`${PREFIX}%`}
      and not exists (select 1 from pg_stat_activity a where a.datname = d.datname)`;
  for (const { datname } of stale) await admin.unsafe(`drop database if exists "${datname}"`);

  const name = `${PREFIX}${randomBytes(5).toString("hex")}`;
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(serverUrl, name);

  // The product's own migrator, exactly as the service runs it at start-up.
  const handle = await createDb({ databaseUrl: url, maxConnections: 1 });
  try {
    await handle.migrate();
  } finally {
    await handle.close();
  }

  const sql = postgres(url, { max: 4, onnotice: () => {}, connect_timeout: 10 });
  let dropped = false;
  return {
    name,
    url,
    sql,
    async drop() {
      if (dropped) return;
      dropped = true;
      await sql.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
