// A COMMIT whose answer is lost (docs/guarantees.md, "A retry tells the truth"): the request answers 503 with
// details.outcome "unknown", and a retry with the same Idempotency-Key answers the stored answer when the
// change committed, or runs afresh when it did not. The test places the fault: COMMIT waits in a deferred
// trigger on an advisory lock the test holds, and a proxy between the service and PostgreSQL cuts the network
// while it waits. The test then lets the COMMIT finish, or ends its backend.
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../db/client.js";
import { createTestApp, TEST_ORIGIN, type TestApp, type TestUser } from "../helpers/app.js";
import { openTestDb, type TestDb, testDbKind } from "../helpers/db.js";
import { type PgProxy, startPgProxy } from "../helpers/pg-proxy.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = new URL(process.env.TEST_DATABASE_URL);
const LOCK = 4343;

let base: TestDb;
let proxy: PgProxy;
let t: TestApp;
let locker: postgres.Sql;
let admin: TestUser;

beforeAll(async () => {
  base = await openTestDb();
  const [row] = (await base.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
  const direct = new URL(serverUrl);
  direct.pathname = `/${row!.name}`;
  locker = postgres(direct.toString(), { max: 2, onnotice: () => {} });
  // A notification's COMMIT waits for as long as the test holds the advisory lock.
  await locker.unsafe(`
    create function wait_for_release() returns trigger language plpgsql as
      $$ begin perform pg_advisory_xact_lock(${LOCK}); return null; end $$;
    create constraint trigger notification_commit after insert on notifications
      deferrable initially deferred for each row execute function wait_for_release();`);
  proxy = await startPgProxy({ host: serverUrl.hostname, port: Number(serverUrl.port || 5432) });
  const viaProxy = new URL(direct);
  viaProxy.port = String(proxy.port);
  const handle = await createDb({ databaseUrl: viaProxy.toString(), queryTimeoutSeconds: 10 });
  t = await createTestApp({ db: { ...handle, queries: [], capture: async () => [], kind: "postgres" } });
  admin = await t.signUp({ admin: true });
});
afterAll(async () => {
  await t.app.close();
  await t.db.close();
  await proxy.close();
  await locker.end();
  await base.close();
});

const sendInApp = (key: string, title: string) =>
  t.app.inject({
    method: "POST",
    url: "/api/notifications/test/in-app",
    headers: { ...admin.headers, "idempotency-key": key, "content-type": "application/json", origin: TEST_ORIGIN },
    payload: { type: "system.retry", title, targetUserId: admin.id },
  });

const stored = async (title: string) => Number((await locker`select count(*)::int as n from notifications where title = ${title}`)[0]!.n);

const commitWaiting = async () =>
  Number((await locker`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query = 'commit'`)[0]!.n);

/** Sends the request and cuts the network once its COMMIT waits on the test's lock; resolves to its answer. */
async function lostCommit(key: string, title: string) {
  const holder = await locker.reserve();
  await holder`begin`;
  await holder`select pg_advisory_xact_lock(${LOCK})`;
  const answer = sendInApp(key, title);
  await waitFor(commitWaiting, (n) => n === 1, { withinMs: 5000, what: "the request's COMMIT waiting" });
  proxy.cut();
  return { answer: await answer, holder };
}

describe("a keyed request whose COMMIT's answer was lost (PostgreSQL)", () => {
  it("answers 503 with outcome unknown; once it committed, a retry answers the stored answer and nothing runs twice", async () => {
    const { answer, holder } = await lostCommit("lost-but-committed", "Committed unseen");
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toMatchObject({ success: false, error: { code: "SERVICE_UNAVAILABLE", details: { outcome: "unknown" } } });
    // The COMMIT goes through once the lock is released: the change was made.
    await holder`commit`;
    holder.release();
    await waitFor(
      () => stored("Committed unseen"),
      (n) => n === 1,
      { withinMs: 5000, what: "the lost COMMIT applied" },
    );

    const retry = await sendInApp("lost-but-committed", "Committed unseen");
    expect(retry.statusCode).toBe(200);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    expect(await stored("Committed unseen")).toBe(1);
  });

  it("once it did not commit, a retry runs afresh, once", async () => {
    const { answer, holder } = await lostCommit("lost-and-rolled-back", "Rolled back unseen");
    expect(answer.json()).toMatchObject({ error: { details: { outcome: "unknown" } } });
    // Its backend ends before the COMMIT can finish: nothing was written.
    await locker`select pg_terminate_backend(pid) from pg_stat_activity where wait_event_type = 'Lock' and query = 'commit'`;
    await waitFor(commitWaiting, (n) => n === 0, { withinMs: 5000, what: "the COMMIT's backend ended" });
    await holder`commit`;
    holder.release();
    expect(await stored("Rolled back unseen")).toBe(0);

    const retry = await sendInApp("lost-and-rolled-back", "Rolled back unseen");
    expect(retry.statusCode).toBe(200);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    expect(await stored("Rolled back unseen")).toBe(1);
    const again = await sendInApp("lost-and-rolled-back", "Rolled back unseen");
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(await stored("Rolled back unseen")).toBe(1);
  });
});
