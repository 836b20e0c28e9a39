// docs/api.md#live-unread-count and #reading-the-restriction-from-other-services: a stream is freed whenever
// its client leaves, also while the stream's first database read is still waiting. The read is held on a lock
// that a second session takes (PostgreSQL only: vitest runs this file in the postgres project), the client
// leaves, the lock is released: the user's stream slot is free, no stream is counted open and no heartbeat
// timer is left writing to the dead connection.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { HEARTBEAT_MS } from "../../server/http/event-stream.js";
import { ofrepStreamsOpen } from "../../server/observability/metrics.js";
import { insertApiKey } from "../helpers/api-keys.js";
import { useTestApp } from "../helpers/app.js";
import { COUNT_WAITING_HERE, testDbKind } from "../helpers/db.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { openSse } from "../helpers/sse.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

/** The heartbeat timers (setInterval every HEARTBEAT_MS) started and not yet stopped. */
function trackHeartbeats() {
  const [realSet, realClear] = [globalThis.setInterval, globalThis.clearInterval];
  const running = new Set<unknown>();
  vi.spyOn(globalThis, "setInterval").mockImplementation(((fn: () => void, ms?: number) => {
    const timer = realSet(fn, ms);
    if (ms === HEARTBEAT_MS) running.add(timer);
    return timer;
  }) as typeof setInterval);
  vi.spyOn(globalThis, "clearInterval").mockImplementation((timer) => {
    running.delete(timer);
    realClear(timer);
  });
  return { running: () => running.size };
}

describe("a stream whose client leaves during its first read (PostgreSQL)", () => {
  const t = useTestApp({ limits: { streamsPerUser: 1 } });
  const o = ofrep(t);
  let base: string;
  /** A second session on the app's database, which holds the locks. */
  let locker: postgres.Sql;

  beforeAll(async () => {
    base = await t().app.listen({ port: 0, host: "127.0.0.1" });
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${row!.name}`;
    locker = postgres(url.toString(), { max: 2, onnotice: () => {} });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await locker?.end();
  });

  const waitingOnLock = async () => (await locker.unsafe(COUNT_WAITING_HERE))[0]!.n as number;
  const connections = () =>
    new Promise<number>((resolve, reject) => t().app.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

  /**
   * Opens `url` while `table` is locked by the second session, leaves once the service's read waits on the
   * lock and the service has seen the connection close, then releases the lock and waits until the read is
   * done and the service has gone on with it (one more request through the same database).
   */
  async function leaveDuringRead(url: string, headers: Record<string, string>, table: string) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = locker.begin(async (tx) => {
      await tx.unsafe(`lock table ${table} in access exclusive mode`);
      locked();
      await released;
    });
    await isLocked;
    try {
      const leaving = new AbortController();
      const opening = fetch(url, { headers, signal: leaving.signal }).catch(() => "left");
      await waitFor(waitingOnLock, (n) => n >= 1, { withinMs: 5000, what: "the stream's first read waiting on the lock" });
      leaving.abort();
      // tRPC answers its headers before the first read; the other doors answer nothing before it.
      await opening;
      await waitFor(connections, (n) => n === 0, { withinMs: 5000, what: "the service seeing the client leave" });
    } finally {
      release();
      await holding;
    }
    await waitFor(waitingOnLock, (n) => n === 0, { withinMs: 5000, what: "the read done" });
    await t().app.inject({ method: "GET", url: "/health/ready" });
  }

  it("unread count: the user's stream slot is free again and no heartbeat runs", async () => {
    const heartbeats = trackHeartbeats();
    const user = await t().signUp();
    await leaveDuringRead(`${base}/api/notifications/stream`, user.headers, "notification_counts");
    expect(heartbeats.running()).toBe(0);

    // STREAMS_PER_USER is 1 here: the slot the left stream took is free.
    const next = await openSse(`${base}/api/notifications/stream`, user.headers);
    expect(next.status).toBe(200);
    next.close();
  });

  it("unread count over tRPC (notifications.onUnreadCount): the user's stream slot is free again", async () => {
    const user = await t().signUp();
    await leaveDuringRead(`${base}/trpc/notifications.onUnreadCount`, user.headers, "notification_counts");
    // STREAMS_PER_USER is 1 here: the next subscription gets its count, not TOO_MANY_REQUESTS.
    const next = await openSse(`${base}/trpc/notifications.onUnreadCount`, user.headers);
    let event = await next.next();
    while (event.event === "connected") event = await next.next();
    next.close();
    expect({ event: event.event, data: JSON.parse(event.data) }).toMatchObject({ data: { json: { count: 0 } } });
  });

  it("OFREP: no stream stays open, counted or beating", async () => {
    const heartbeats = trackHeartbeats();
    const key = await insertApiKey(t().db.db);
    const bulk = (await o.bulk({ headers: key.headers, body: forPro("pro-leaves-early") })).json() as { eventStreams: { url: string }[] };
    const streamUrl = new URL(bulk.eventStreams[0]!.url);
    const open = async () => (await ofrepStreamsOpen.get()).values[0]?.value ?? 0;
    const before = await open();

    await leaveDuringRead(`${base}${streamUrl.pathname}${streamUrl.search}`, {}, "api_keys");
    expect({ open: await open(), heartbeats: heartbeats.running() }).toEqual({ open: before, heartbeats: 0 });
  });
});
