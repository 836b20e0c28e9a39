// A migrated database for one test file: in-memory PGlite, or (TEST_DB=postgres) a fresh database
// created on the server of TEST_DATABASE_URL and dropped afterwards.
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { createDb, type DbHandle, migrationsFolder } from "../../db/client.js";
import { dbMetrics } from "../../server/observability/metrics.js";

export type TestDb = DbHandle & {
  /** Every statement Drizzle sent, in order; tests clear it and count. */
  queries: string[];
  /** The statements Drizzle sends while `run` runs, with their parameters (to run one again under EXPLAIN). */
  capture(run: () => Promise<unknown>): Promise<Statement[]>;
  /** Which server this file runs against. */
  kind: "pglite" | "postgres";
};

export type Statement = { query: string; params: unknown[] };

export const testDbKind = (): "pglite" | "postgres" => (process.env.TEST_DB === "postgres" ? "postgres" : "pglite");

/** `migrated: false`: an empty database, for tests of the migrations themselves. */
export async function openTestDb(options: { migrated?: boolean; queryTimeoutSeconds?: number | undefined } = {}): Promise<TestDb> {
  const migrated = options.migrated ?? true;
  const queries: string[] = [];
  let captured: Statement[] | null = null;
  const onQuery = (query: string, params: unknown[]) => {
    // Memory's own reads and heartbeats (server/memory/, marked) follow a request's commit in the background:
    // they are not the request's statements, which tests count.
    if (query.includes("/* memory */")) return;
    queries.push(query);
    captured?.push({ query, params });
  };
  async function capture(run: () => Promise<unknown>): Promise<Statement[]> {
    captured = [];
    try {
      await run();
      return captured;
    } finally {
      captured = null;
    }
  }
  if (testDbKind() === "pglite") {
    const pgliteLoadDataDir = migrated ? await migratedPgliteDump() : undefined;
    const handle = await createDb({ pgliteDir: "memory://", pgliteLoadDataDir, onQuery, observe: dbMetrics });
    return { ...handle, queries, capture, kind: "pglite" };
  }

  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DB=postgres needs TEST_DATABASE_URL");
  const name = `rn_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  if (migrated) await admin.unsafe(`create database ${name} template ${await migratedTemplate(admin, serverUrl)}`);
  else await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await createDb({
    databaseUrl: url.toString(),
    onQuery,
    maxConnections: 10,
    observe: dbMetrics,
    queryTimeoutSeconds: options.queryTimeoutSeconds,
  });
  return {
    ...handle,
    queries,
    capture,
    kind: "postgres",
    async close() {
      await handle.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/**
 * PostgreSQL: the backends of this database (the asking one left out) that wait for a lock held by another
 * backend of this database, as rows of `pid`. Not `wait_event_type = 'Lock'` alone: an app's outbox relay waits
 * a moment for NOTIFY's commit lock, which the server shares across databases, whenever another test file's
 * relay commits at the same time.
 */
export const WAITING_HERE = `select w.pid from pg_stat_activity w
  where w.datname = current_database() and w.pid <> pg_backend_pid()
    and exists (select from pg_stat_activity b where b.pid = any(pg_blocking_pids(w.pid)) and b.datname = current_database())`;

/** WAITING_HERE's count, as one row `{ n }`. */
export const COUNT_WAITING_HERE = `select count(*)::int as n from (${WAITING_HERE}) waiting`;

/** PostgreSQL: a session of its own on a test file's database, to hold locks or end backends beside the app. */
export async function otherSession(testDb: TestDb, max = 1): Promise<postgres.Sql> {
  const [row] = (await testDb.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${row!.name}`;
  return postgres(url.toString(), { max, onnotice: () => {} });
}

/**
 * PostgreSQL: the migrated database every test file's is copied from (CREATE DATABASE … TEMPLATE), made once
 * per set of migrations and named by their digest; migrating each file's database cost a second or two, ~2
 * minutes of a CI run. `.ci/run` drops it with the other test databases before a run.
 */
async function migratedTemplate(admin: postgres.Sql, serverUrl: string): Promise<string> {
  const name = `rn_test_template_${migrationsDigest()}`;
  // One builder at a time, whatever number of test processes start together.
  await admin`select pg_advisory_lock(7022431905119)`;
  try {
    const [exists] = await admin`select 1 as found from pg_database where datname = ${name}`;
    if (!exists) {
      const building = `${name}_building`;
      await admin.unsafe(`drop database if exists ${building} with (force)`);
      await admin.unsafe(`create database ${building}`);
      const url = new URL(serverUrl);
      url.pathname = `/${building}`;
      const handle = await createDb({ databaseUrl: url.toString(), maxConnections: 1 });
      try {
        await handle.migrate();
      } finally {
        await handle.close();
      }
      await admin.unsafe(`alter database ${building} rename to ${name}`);
    }
  } finally {
    await admin`select pg_advisory_unlock(7022431905119)`;
  }
  return name;
}

/** Names the migrations as they are now: a template made from others is not used. */
function migrationsDigest(): string {
  const digest = createHash("sha256");
  for (const file of readdirSync(migrationsFolder).sort()) {
    if (file.endsWith(".sql")) digest.update(file).update(readFileSync(join(migrationsFolder, file)));
  }
  digest.update(readFileSync(join(migrationsFolder, "meta", "_journal.json")));
  return digest.digest("hex").slice(0, 16);
}

/**
 * PGlite: a migrated in-memory database as a tarball, made once per set of migrations and kept in the system's
 * temporary folder; each test file's database starts from it instead of running the migrations (~1 s each).
 */
async function migratedPgliteDump(): Promise<Blob> {
  const path = join(tmpdir(), `rn-pglite-migrated-${migrationsDigest()}.tar`);
  if (!existsSync(path)) {
    const handle = await createDb({ pgliteDir: "memory://" });
    try {
      await handle.migrate();
      if (handle.driver !== "pglite") throw new Error("expected PGlite");
      const partial = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
      writeFileSync(partial, Buffer.from(await (await handle.dumpDataDir()).arrayBuffer()));
      renameSync(partial, path);
    } finally {
      await handle.close();
    }
  }
  return new Blob([readFileSync(path)]);
}

/**
 * A copy of the migrations that stops before `tag`, for a test of that migration on the rows an earlier
 * schema had (db.migrate(folder)); the caller removes the folder.
 */
export function migrationsBefore(tag: string): string {
  const earlier = mkdtempSync(join(tmpdir(), "rn-migrations-"));
  cpSync(migrationsFolder, earlier, { recursive: true });
  const journalFile = join(earlier, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  journal.entries = journal.entries.slice(
    0,
    journal.entries.findIndex((e) => e.tag === tag),
  );
  writeFileSync(journalFile, JSON.stringify(journal));
  return earlier;
}
