// CONTRACT part four, "Live streams": after an interruption of the change feed (the LISTEN connection), each
// open stream gets the current state, or refetchEvaluation, within 2 s of the feed's return, and streams whose
// session ended or whose key was revoked meanwhile are closed. PostgreSQL only (the postgres project).
//
// The gap is forced, not raced: the database stops accepting connections, the LISTEN backend is terminated, so
// postgres.js cannot listen again until the test lets it, and every change is committed in that gap through
// the pool's connections, which stay open. Every NOTIFY of those changes is lost for good.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registry } from "../../server/observability/metrics.js";
import { insertApiKey, type TestApiKey } from "../helpers/api-keys.js";
import { TEST_ORIGIN, type TestUser, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { adminRestrictionApi, freshId, registerPros } from "../helpers/fixtures.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { nextCount, openSse, type SseStream } from "../helpers/sse.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

const CHANNELS = ["unread_count", "session_ended", "restriction_flags", "api_key_revoked"];

describe("live streams after the LISTEN connection was lost (PostgreSQL)", () => {
  const t = useTestApp();
  const o = ofrep(t);
  let base: string;
  let database: string;
  /** A connection to the server (not to the app's database), which opens and closes the database. */
  let server: postgres.Sql;
  const streams: SseStream[] = [];

  beforeAll(async () => {
    base = await t().app.listen({ port: 0, host: "127.0.0.1" });
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    database = row!.name;
    server = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await server?.unsafe(`alter database ${database} allow_connections true`);
    await server?.end();
  });

  const open = async (url: string, headers: Record<string, string> = {}) => {
    const s = await openSse(url, headers);
    streams.push(s);
    expect(s.status).toBe(200);
    return s;
  };
  const ofrepStream = async (key: TestApiKey, proId: string) => {
    const { eventStreams } = (await o.bulk({ headers: key.headers, body: forPro(proId) })).json() as { eventStreams: { url: string }[] };
    const url = new URL(eventStreams[0]!.url);
    return open(`${base}${url.pathname}${url.search}`);
  };
  /** The backends LISTENing for this database (postgres.js's one connection for every channel). */
  const listeners = async () =>
    (await server`select pid from pg_stat_activity where datname = ${database} and query ilike 'listen %'`).map((r) => r.pid as number);
  const reconnects = async () => {
    const values = (await registry.getSingleMetric("db_listen_reconnects_total")?.get())?.values ?? [];
    return Object.fromEntries(CHANNELS.map((channel) => [channel, values.find((v) => v.labels.channel === channel)?.value ?? 0]));
  };

  it("sends each stream what it missed, and closes those of ended sessions and revoked keys, once listening resumes", async () => {
    const admin = await t().signUp({ admin: true });
    const reader: TestUser = await t().signUp();
    const leaver: TestUser = await t().signUp();
    const quiet: TestUser = await t().signUp();
    const [proId, otherPro] = [freshId("pro-gap"), freshId("pro-gap")];
    await registerPros(t().db.db, [proId, otherPro]);
    const [key, doomedKey] = [await insertApiKey(t().db.db), await insertApiKey(t().db.db)];

    const unread = await open(`${base}/api/notifications/stream`, reader.headers);
    const ended = await open(`${base}/api/notifications/stream`, leaver.headers);
    const unchanged = await open(`${base}/api/notifications/stream`, quiet.headers);
    expect([await nextCount(unread), await nextCount(ended), await nextCount(unchanged)]).toEqual([0, 0, 0]);
    const flags = await ofrepStream(key, proId);
    const revoked = await ofrepStream(doomedKey, otherPro);
    const [listener] = await listeners();
    expect(listener).toBeDefined();
    const before = await reconnects();

    // The gap: no new connection is accepted, and the LISTEN connection is gone.
    await server.unsafe(`alter database ${database} allow_connections false`);
    const [terminated] = await server`select pg_terminate_backend(${listener!}) as ended`;
    expect(terminated!.ended).toBe(true);

    // Committed in the gap, through the pool's open connections: every NOTIFY is lost.
    const created = await t().app.inject({
      method: "POST",
      url: "/api/notifications/test/in-app",
      headers: admin.headers,
      payload: { type: "message.received", title: "Sent in the gap", targetUserId: reader.id },
    });
    expect(created.statusCode).toBe(200);
    await (await adminRestrictionApi(t())).activatePro({ proId });
    const signOut = await t().app.inject({
      method: "POST",
      url: "/api/auth/sign-out",
      headers: { ...leaver.headers, origin: TEST_ORIGIN },
    });
    expect(signOut.statusCode).toBe(200);
    const revoke = await t().app.inject({ method: "DELETE", url: `/api/admin/api-keys/${doomedKey.id}`, headers: admin.headers });
    expect(revoke.statusCode).toBe(200);
    expect(await listeners()).toEqual([]);

    // The feed returns: postgres.js connects and listens again.
    await server.unsafe(`alter database ${database} allow_connections true`);
    await waitFor(listeners, (pids) => pids.length === 1, { withinMs: 10_000, what: "postgres.js listening again" });

    // Within 2 s of it, each stream has caught up.
    expect(await nextCount(unread, 2_000)).toBe(1);
    const refetch = await flags.next(2_000);
    expect(JSON.parse(refetch.data)).toMatchObject({ type: "refetchEvaluation" });
    await ended.ended(2_000);
    await revoked.ended(2_000);
    // docs/operators.md#metrics: the reconnection is counted on every channel listened to again.
    const after = await reconnects();
    for (const channel of CHANNELS) expect({ channel, counted: after[channel]! > before[channel]! }).toEqual({ channel, counted: true });

    // And the feed works as before: the next change arrives as usual. A count the gap left as it was was not
    // sent again: the quiet user's next event is this change's.
    for (const target of [reader, quiet]) {
      await t().app.inject({
        method: "POST",
        url: "/api/notifications/test/in-app",
        headers: admin.headers,
        payload: { type: "message.received", title: "After the gap", targetUserId: target.id },
      });
    }
    expect([await nextCount(unread, 2_000), await nextCount(unchanged, 2_000)]).toEqual([2, 1]);
  });
});
