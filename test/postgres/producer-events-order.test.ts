// Two producer batches that carry the same eventIds in opposite orders (docs/producers.md#sending-notifications-from-a-service)
// cannot deadlock: each batch claims its eventIds in one fixed order (sorted), so a batch waiting for an eventId
// holds none that comes after it. Forced with a session of the test that holds the first eventId uncommitted:
// both batches queue behind it, and a probe shows that neither holds the other eventId while it waits.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { type EventResult, eventFor, producer } from "../helpers/producers.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = process.env.TEST_DATABASE_URL;

describe("producer batches with the same eventIds in opposite orders (PostgreSQL)", () => {
  const t = useTestApp();
  const p = producer(t);
  let sessions: postgres.Sql;

  beforeAll(async () => {
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    const url = new URL(serverUrl);
    url.pathname = `/${row!.name}`;
    sessions = postgres(url.toString(), { max: 3, onnotice: () => {} });
  });
  afterAll(async () => {
    await sessions?.end({ timeout: 5 });
  });

  /** Backends that wait for a lock `pid` holds. */
  const blockedBy = async (pid: number) =>
    (await sessions<{ pid: number }[]>`select pid from pg_stat_activity where ${pid} = any(pg_blocking_pids(pid))`).map((r) => r.pid);

  it("both answer 200: one creates both events, the other finds both duplicates; neither holds an eventId while it waits", async () => {
    const name = `race-${Math.random().toString(36).slice(2, 8)}`;
    const key = await p.key(name);
    const user = await t().signUp();
    const [first, second] = [eventFor(user.id, { eventId: `${name}-1` }), eventFor(user.id, { eventId: `${name}-2` })];
    const claim = (sql: postgres.ReservedSql, eventId: string) =>
      sql`insert into notification_events (producer, event_id, user_id) values (${name}, ${eventId}, ${user.id}) on conflict do nothing`;

    const holder = await sessions.reserve();
    const probe = await sessions.reserve();
    const backendOf = async (sql: postgres.ReservedSql) => (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
    const holderPid = await backendOf(holder);
    const probePid = await backendOf(probe);
    try {
      await holder`begin`;
      await claim(holder, first.eventId);
      const answers = [p.send(key, [first, second]), p.send(key, [second, first])];
      await waitFor(
        () => blockedBy(holderPid),
        (pids) => pids.length === 2,
        { withinMs: 10_000, what: "both batches waiting on the first eventId" },
      );

      // In claim order [second, first] the second batch would hold `second` now, and the probe would wait for it.
      await probe`begin`;
      let probed = false;
      // Settles when claimed; a failed run ends the probe's backend in \`finally\`, which the test does not await.
      const probing = claim(probe, second.eventId).then(
        () => (probed = true),
        () => {},
      );
      const waits = async () => (await sessions`select 1 where cardinality(pg_blocking_pids(${probePid})) > 0`).length > 0;
      const outcome = await waitFor(
        async () => (probed ? "claimed" : (await waits()) ? "waits for a batch" : null),
        (v) => v !== null,
        {
          withinMs: 10_000,
          what: "the probe's claim of the second eventId",
        },
      );
      expect(outcome).toBe("claimed");
      await probing;
      await probe`rollback`;

      await holder`rollback`;
      const [ab, ba] = await Promise.all(answers);
      expect([ab!.statusCode, ba!.statusCode], `${ab!.body} ${ba!.body}`).toEqual([200, 200]);
      const byEvent = (body: string) =>
        Object.fromEntries((JSON.parse(body) as { data: { results: EventResult[] } }).data.results.map((r) => [r.eventId, r.status]));
      const outcomes = [byEvent(ab!.body), byEvent(ba!.body)];
      const created = { [first.eventId]: "created", [second.eventId]: "created" };
      const duplicate = { [first.eventId]: "duplicate", [second.eventId]: "duplicate" };
      expect(outcomes).toContainEqual(created);
      expect(outcomes).toContainEqual(duplicate);
    } finally {
      // A failed run may leave a session waiting: ending both backends frees everything behind them.
      await sessions`select pg_terminate_backend(pid) from unnest(${[holderPid, probePid]}::int[]) as pid`.catch(() => {});
      holder.release();
      probe.release();
    }
  });
});
