// The change outbox and its relay (issue V; migration 0018, db/outbox-relay.ts). On PostgreSQL a writer only
// records what changed; one relay per database announces it. What must hold: a change committed after a later
// one is still announced (the classic outbox trap: a relay that remembers the last id it saw skips it), a
// statement that changes many users is one row and as many NOTIFYs as the 8000-byte limit needs, writes made
// outside the service are announced, and exactly one of several candidates relays. PostgreSQL only.
import type postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Relay, RelayBatch } from "../../db/outbox-relay.js";
import { type Heard, hear, outboxRows } from "../helpers/announcements.js";
import { useTestApp } from "../helpers/app.js";
import { openTestDb, otherSession, type TestDb, testDbKind } from "../helpers/db.js";
import { ensureUsers, newUsers } from "../helpers/notification-counts.js";
import { nextCount, openSse } from "../helpers/sse.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("the change outbox and its relay (PostgreSQL)", () => {
  let db: TestDb & { driver: "postgres" };
  let session: postgres.Sql;
  let heard: Heard;
  const relays: Relay[] = [];
  const errors: unknown[] = [];
  const startRelay = () => {
    const relay = db.startRelay({ pollMs: 10, batchSize: 1000, takeoverMs: 100, onError: (err) => errors.push(err) });
    relays.push(relay);
    return relay;
  };

  beforeAll(async () => {
    const opened = await openTestDb();
    if (opened.driver !== "postgres") throw new Error("PostgreSQL only");
    db = opened;
    session = await otherSession(db, 4);
    heard = await hear(session, "unread_count");
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.stop()));
    expect(errors).toEqual([]);
  });
  afterAll(async () => {
    await heard?.stop();
    await session?.end();
    await db?.close();
  });

  it("announces a change whose transaction commits after a later change was already announced", async () => {
    startRelay();
    // Session 1 records its change and keeps its transaction open; session 2's change gets the next id and commits.
    const first = await session.reserve();
    const second = await session.reserve();
    try {
      await first`begin`;
      await first`select announce('unread_count', array['committed-last'])`;
      const [early] = await first<{ id: number }[]>`select currval(pg_get_serial_sequence('change_outbox', 'id'))::int as id`;
      await second`select announce('unread_count', array['committed-first'])`;
      const [late] = await second<{ id: number }[]>`select currval(pg_get_serial_sequence('change_outbox', 'id'))::int as id`;
      expect(early!.id).toBeLessThan(late!.id);

      // The relay has passed the higher id while the lower one was not yet committed.
      await heard.until(["committed-first"]);
      expect(heard.items()).not.toContain("committed-last");

      await first`commit`;
      await heard.until(["committed-last"]);
      expect(await outboxRows(session)).toEqual([]);
    } finally {
      first.release();
      second.release();
    }
  });

  it("writes made outside the service are announced: one row per statement, NOTIFYs within the payload limit, every user heard", async () => {
    // 1,000 users changed by one raw INSERT: too many for one 8000-byte NOTIFY. Short ids, where the
    // separators weigh most, and a few long ones.
    const people = newUsers(1000).map((person, i) => (i % 100 ? person : { ...person, id: `${person.id}-${"x".repeat(1200)}` }));
    await ensureUsers(db.db, people);
    const ids = people.map((person) => person.id);
    await session`
      insert into notifications (user_id, event_type, category, title)
      select id, 'message.received', 'messages', 'written by hand' from users where id = any(${ids})`;
    // Recorded by the statement trigger, before any relay runs: one row for the statement.
    expect((await outboxRows(session)).map((row) => row.channel)).toEqual(["unread_count"]);

    const before = heard.payloads.length;
    startRelay();
    await heard.until(ids);
    const payloads = heard.payloads.slice(before);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    expect(await outboxRows(session)).toEqual([]);
  });

  it("tells memory's heartbeats from changes: only a change keeps the relay polling at its quick pace", async () => {
    const batches: RelayBatch[] = [];
    relays.push(
      db.startRelay({
        pollMs: 10,
        batchSize: 1000,
        takeoverMs: 100,
        onBatch: (batch) => batches.push(batch),
        onError: (err) => errors.push(err),
      }),
    );
    await session`select announce('memory_heartbeat', array['instance:1'])`;
    await waitFor(
      async () => batches.length,
      (n) => n === 1,
      { withinMs: 5_000, what: "the heartbeat's batch" },
    );
    await session`select announce('unread_count', array['a-change'])`;
    await heard.until(["a-change"]);
    await waitFor(
      async () => batches.length,
      (n) => n === 2,
      { withinMs: 5_000, what: "the change's batch" },
    );
    expect(batches.map(({ rows, changes }) => ({ rows, changes }))).toEqual([
      { rows: 1, changes: 0 },
      { rows: 1, changes: 1 },
    ]);
  });

  it("of two candidates exactly one relays; when it stops, the other takes over", async () => {
    const [a, b] = [startRelay(), startRelay()];
    const owners = () => Promise.resolve([a.isOwner(), b.isOwner()].filter(Boolean).length);
    await waitFor(owners, (n) => n === 1, { withinMs: 5_000, what: "one relay" });
    const [owner, other] = a.isOwner() ? [a, b] : [b, a];
    await owner.stop();
    await waitFor(async () => other.isOwner(), Boolean, { withinMs: 5_000, what: "the other candidate relaying" });
    await session`select announce('unread_count', array['after-takeover'])`;
    await heard.until(["after-takeover"]);
  });
});

describe("writes made outside the service reach a live stream (PostgreSQL)", () => {
  const t = useTestApp();
  let session: postgres.Sql;
  beforeAll(async () => {
    session = await otherSession(t().db);
  });
  afterAll(async () => {
    await session?.end();
  });

  it("a notification inserted with raw SQL moves the count on its user's stream", async () => {
    const base = await t().app.listen({ port: 0, host: "127.0.0.1" });
    const user = await t().signUp();
    const stream = await openSse(`${base}/api/notifications/stream`, user.headers);
    try {
      expect(await nextCount(stream)).toBe(0);
      await session`insert into notifications (user_id, event_type, category, title) values (${user.id}, 'message.received', 'messages', 'raw')`;
      expect(await nextCount(stream, 5_000)).toBe(1);
    } finally {
      stream.close();
    }
  });
});
