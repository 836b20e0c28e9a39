// The relay's failover (issue V): the instance that relays the change outbox is killed (SIGKILL, no goodbye),
// and another instance announces the next change within a bound. PostgreSQL frees the dead session's advisory
// lock when it sees the connection close; the survivor takes it at its next try. PostgreSQL only.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type DbHandle } from "../../db/client.js";
import type { Relay } from "../../db/outbox-relay.js";
import { type Heard, hear } from "../helpers/announcements.js";
import { testDbKind } from "../helpers/db.js";
import { type ProcessDatabase, processDatabase, type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

/** How long the survivor waits between tries to take the relay over (the service's default is 1 s). */
const TAKEOVER_MS = 1000;

describe("relay failover (PostgreSQL)", () => {
  let database: ProcessDatabase;
  let server: ServerProcess | undefined;
  let survivor: Extract<DbHandle, { driver: "postgres" }>;
  let relay: Relay | undefined;
  let session: postgres.Sql;
  let heard: Heard;

  beforeAll(async () => {
    database = await processDatabase();
    session = postgres(database.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  }, 60_000);
  afterAll(async () => {
    await relay?.stop();
    await heard?.stop();
    await session?.end();
    await survivor?.close();
    await server?.kill();
    await database?.close();
  });

  /** The backends holding the relay's lock: the one relaying, by its application name. */
  const relayHolders = async () =>
    session<{ pid: number }[]>`
      select l.pid from pg_locks l join pg_stat_activity a using (pid)
      where l.locktype = 'advisory' and l.granted and a.application_name = 'outbox-relay' and a.datname = current_database()`;

  it("a second instance announces within a bound once the relaying instance is killed", async () => {
    // The first instance to start relays: the server process, alone on its database.
    server = await startServerProcess({ ...database.env, LOG_LEVEL: "silent" });
    await waitFor(relayHolders, (rows) => rows.length === 1, { withinMs: 10_000, what: "the server process relaying" });

    // A second instance: a candidate that finds the lock taken.
    const opened = await createDb({ databaseUrl: database.env.DATABASE_URL });
    if (opened.driver !== "postgres") throw new Error("PostgreSQL only");
    survivor = opened;
    relay = survivor.startRelay({ pollMs: 10, batchSize: 1000, takeoverMs: TAKEOVER_MS, onError: () => {} });
    heard = await hear(session, "unread_count");
    await session`select announce('unread_count', array['while-the-first-relays'])`;
    await heard.until(["while-the-first-relays"]);
    expect(relay.isOwner()).toBe(false);

    await server.kill();
    // Recorded with no relay alive for a moment, announced by the survivor once it takes over.
    await session`select announce('unread_count', array['after-the-crash'])`;
    // The bound: PostgreSQL ends the dead session at once (its socket closed), then the next try takes the lock.
    await heard.until(["after-the-crash"], TAKEOVER_MS * 5);
    expect(relay.isOwner()).toBe(true);
    expect(await relayHolders()).toHaveLength(1);
  }, 90_000);
});
