// Memory is never served while it may be stale (issue W, server/memory/feed.ts). PostgreSQL only: PGlite
// hears its announcements in-process and cannot lose one.
//
// Each gap is forced, not raced: the LISTEN connection is terminated while the database refuses new
// connections (as test/postgres/listen-reconnect.test.ts does), or the relay that announces changes is held
// by a lock-holding impostor. The change is committed in the gap, where no announcement of it can arrive.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey, type TestApiKey } from "../helpers/api-keys.js";
import { createTestApp, type TestApp, type TestUser, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { registeredPro } from "../helpers/fixtures.js";
import { answeredFrom } from "../helpers/memory.js";
import { forPro, ofrep } from "../helpers/ofrep.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("memory and the gaps in what an instance hears (PostgreSQL)", () => {
  const t = useTestApp();
  let database: string;
  /** A connection to the server, not through the app: opens and closes the database, ends backends. */
  let server: postgres.Sql;

  beforeAll(async () => {
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    database = row!.name;
    server = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await server?.unsafe(`alter database ${database} allow_connections true`);
    await server?.end();
  });

  const evaluate = (app: TestApp, key: TestApiKey, proId: string) =>
    answeredFrom("pro_status", async () => {
      const answer = await ofrep(() => app).evaluate({ headers: key.headers, body: forPro(proId) });
      expect(answer.statusCode).toBe(200);
      return (answer.json() as { value: boolean }).value;
    });
  const untilFromMemory = (app: TestApp, key: TestApiKey, proId: string, value: boolean) =>
    waitFor(
      () => evaluate(app, key, proId),
      (answer) => answer.source === "memory" && answer.value === value,
      { withinMs: 5000, what: `memory answering ${value}` },
    );
  /**
   * Set by hand, as a seed or an operator's SQL would: no request of this process fences memory. Through the
   * pool's open connections, which a database refusing new connections keeps.
   */
  const setByHand = (proId: string, on: boolean) =>
    t().db.db.execute(sql`insert into pro_restriction_status (pro_id, restriction_active) values (${proId}, ${on})
      on conflict (pro_id) do update set restriction_active = excluded.restriction_active`);

  it("a LISTEN outage: from the bound on, the database answers; a change committed in the gap is never answered stale", async () => {
    const key = await insertApiKey(t().db.db);
    const proId = await registeredPro(t().db.db);
    await untilFromMemory(t(), key, proId, false);
    const [listener] = await server`select pid from pg_stat_activity where datname = ${database} and query ilike 'listen %'`;

    await server.unsafe(`alter database ${database} allow_connections false`);
    await server`select pg_terminate_backend(${listener!.pid as number})`;
    // Memory is served only while its newest proof is under the bound: it stops by itself.
    await waitFor(
      () => evaluate(t(), key, proId),
      (answer) => answer.source === "database",
      {
        withinMs: 2000,
        what: "the database answering once the heartbeats stop",
      },
    );
    await setByHand(proId, true);
    for (let i = 0; i < 20; i++) expect(await evaluate(t(), key, proId)).toEqual({ value: true, source: "database" });

    // Listening resumes: memory is read afresh before it is served, so it serves the change it never heard.
    await server.unsafe(`alter database ${database} allow_connections true`);
    await untilFromMemory(t(), key, proId, true);
    for (let i = 0; i < 20; i++) expect((await evaluate(t(), key, proId)).value).toBe(true);
  });

  it("a revoke and a sign-out during a LISTEN outage are refused from the bound on, and after listening resumes", async () => {
    const user = await t().signUp();
    const key = await insertApiKey(t().db.db);
    const whoAmI = () =>
      answeredFrom(
        "session",
        async () => (await t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: user.headers })).statusCode,
      );
    const evaluateWith = () =>
      answeredFrom("api_key", async () => (await ofrep(t).evaluate({ headers: key.headers, body: forPro("pro-gap") })).statusCode);
    const fromMemory = { withinMs: 5000, what: "an answer from memory" };
    await waitFor(whoAmI, (a) => a.source === "memory" && a.value === 200, fromMemory);
    await waitFor(evaluateWith, (a) => a.source === "memory" && a.value === 200, fromMemory);
    const [listener] = await server`select pid from pg_stat_activity where datname = ${database} and query ilike 'listen %'`;

    await server.unsafe(`alter database ${database} allow_connections false`);
    await server`select pg_terminate_backend(${listener!.pid as number})`;
    await waitFor(whoAmI, (a) => a.source === "database", { withinMs: 2000, what: "the database answering once the heartbeats stop" });
    await t().db.db.execute(sql`delete from sessions where user_id = ${user.id}`);
    await t().db.db.execute(sql`update api_keys set revoked_at = now() where id = ${key.id}`);
    for (let i = 0; i < 10; i++) {
      expect(await whoAmI()).toEqual({ value: 401, source: "database" });
      expect(await evaluateWith()).toEqual({ value: 401, source: "database" });
    }

    await server.unsafe(`alter database ${database} allow_connections true`);
    await waitFor(evaluateWith, (a) => a.source === "memory" && a.value === 401, fromMemory);
    for (let i = 0; i < 10; i++) expect((await whoAmI()).value).toBe(401);
  });

  it("unread counts changed during a LISTEN outage: the database answers in the gap, memory once it has read afresh", async () => {
    // `asked` is read during the gap; `unasked` is not, so only the reload after the gap can correct it.
    const [asked, unasked] = [await t().signUp(), await t().signUp()];
    const unread = (user: TestUser) =>
      answeredFrom("unread_count", async () => {
        const res = await t().app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: user.headers });
        return (res.json() as { data: { count: number } }).data.count;
      });
    const fromMemory = (user: TestUser, count: number) =>
      waitFor(
        () => unread(user),
        (a) => a.source === "memory" && a.value === count,
        { withinMs: 5000, what: `memory answering ${count}` },
      );
    await fromMemory(asked, 0);
    await fromMemory(unasked, 0);
    const [listener] = await server`select pid from pg_stat_activity where datname = ${database} and query ilike 'listen %'`;

    await server.unsafe(`alter database ${database} allow_connections false`);
    await server`select pg_terminate_backend(${listener!.pid as number})`;
    await waitFor(
      () => unread(asked),
      (a) => a.source === "database",
      { withinMs: 2000, what: "the database answering once the heartbeats stop" },
    );
    for (const user of [asked, unasked]) {
      await t().db.db.execute(
        sql`insert into notifications (user_id, event_type, category, title) values (${user.id}, 'message.received', 'messages', 'in the gap')`,
      );
    }
    for (let i = 0; i < 10; i++) expect(await unread(asked)).toEqual({ value: 1, source: "database" });

    // Once memory is served again, the count it held for `unasked` from before the gap is gone.
    await server.unsafe(`alter database ${database} allow_connections true`);
    await fromMemory(asked, 1);
    for (let i = 0; i < 10; i++) expect((await unread(unasked)).value).toBe(1);
  });

  it("no relay announcing: memory stops being served, and a change made meanwhile is answered from the database", async () => {
    const key = await insertApiKey(t().db.db);
    const proId = await registeredPro(t().db.db);
    await untilFromMemory(t(), key, proId, false);
    // An impostor holds the relay's lock after the relay lost it: nothing in the outbox is announced.
    const relays = await server`select pid from pg_stat_activity where datname = ${database} and application_name = 'outbox-relay'`;
    const impostor = postgres(process.env.TEST_DATABASE_URL!.replace(/\/[^/]*$/, `/${database}`), { max: 1, onnotice: () => {} });
    try {
      const [held] = await impostor`
        select pg_terminate_backend(${relays[0]!.pid as number}) as ended, pg_advisory_lock(7022431905118) is not null as held`;
      expect(held).toMatchObject({ ended: true, held: true });
      await waitFor(
        () => evaluate(t(), key, proId),
        (answer) => answer.source === "database",
        {
          withinMs: 2000,
          what: "the database answering once no heartbeat is announced",
        },
      );
      await setByHand(proId, true);
      for (let i = 0; i < 20; i++) expect(await evaluate(t(), key, proId)).toEqual({ value: true, source: "database" });
    } finally {
      await impostor.end();
    }
    // The relay takes its lock back: the change is announced, and memory serves it.
    await untilFromMemory(t(), key, proId, true);
  });

  it("two instances converge: a change made through either is served from the memory of both", async () => {
    const second = await createTestApp({ db: t().db });
    try {
      const key = await insertApiKey(t().db.db);
      const proId = await registeredPro(t().db.db);
      await untilFromMemory(t(), key, proId, false);
      await untilFromMemory(second, key, proId, false);
      for (const on of [true, false, true]) {
        await setByHand(proId, on);
        await untilFromMemory(t(), key, proId, on);
        await untilFromMemory(second, key, proId, on);
      }
    } finally {
      await second.app.close();
    }
  });
});
