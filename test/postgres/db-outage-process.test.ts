// The real server process (server/main.ts) on PostgreSQL while backends are terminated over and over, as
// in a database restart or failover: it must keep running, answer 503 while the database is away (and
// nothing else but 200), answer every request within its bounds, and serve again afterwards. An in-process
// app cannot show all of it: one harm is an unhandled rejection, which Node turns into an exit of the process.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { outageUnderTraffic, slowest } from "../helpers/outage.js";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = process.env.TEST_DATABASE_URL;
/** As in db-outage.test.ts: the statement bound, and what it allows a request. */
const QUERY_TIMEOUT_SECONDS = 3;
const REQUEST_BOUND_MS = 4 * QUERY_TIMEOUT_SECONDS * 1000;

type Answer = { status: number; body: string };

/** Node's report of an uncaught error, without the stack, or the end of what the process said. */
function lastWords(output: string): string {
  const crash = output.lastIndexOf("triggerUncaughtException");
  return (crash >= 0 ? output.slice(crash) : output.slice(-1_500))
    .split("\n")
    .filter((line) => !/^\s+at /.test(line))
    .join("\n")
    .slice(0, 1_500);
}

/** The server's log lines of the answers that were faults (status 500), not the database's absence (503). */
function faultLines(output: string): string {
  return output
    .split("\n")
    .filter((line) => line.includes('"status":500'))
    .join("\n")
    .slice(0, 6_000);
}

describe("the server process while PostgreSQL backends are terminated (PostgreSQL)", () => {
  // Only for its database (migrated, dropped afterwards): the server process is what answers.
  const t = useTestApp();
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.kill();
    await admin.end();
  });

  it("keeps running through rounds of terminations, answers only 200 or 503 and in time, and serves again", async () => {
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    const databaseName = row!.name;
    const databaseUrl = new URL(serverUrl);
    databaseUrl.pathname = `/${databaseName}`;
    server = await startServerProcess({
      DATABASE_URL: databaseUrl.toString(),
      BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
      DB_QUERY_TIMEOUT_SECONDS: String(QUERY_TIMEOUT_SECONDS),
      // Errors only: a 500's own log line is what a failure below shows.
      LOG_LEVEL: "error",
    });
    const base = server.url;
    const get = (path: string, headers: Record<string, string> = {}): Promise<Answer> =>
      fetch(`${base}${path}`, { headers }).then(
        async (res) => ({ status: res.status, body: await res.text() }),
        (err: Error) => ({ status: 0, body: String(err.cause ?? err) }),
      );

    const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({
        name: "Outage",
        email: `outage-${randomBytes(4).toString("hex")}@test.local`,
        password: "correct-horse-battery",
      }),
    });
    expect(signUp.status).toBe(200);
    const auth = { authorization: `Bearer ${((await signUp.json()) as { token: string }).token}` };
    const paths = ["/health/ready", "/api/notifications/unread-count", "/api/notifications?limit=5", "/trpc/notifications.unreadCount"];

    // Three rounds of every backend terminated every 25 ms for 2 s under traffic: some terminations land
    // on connections the pool is just opening, as they do while a database restarts.
    const outage = await outageUnderTraffic({
      admin,
      database: databaseName,
      request: (i) => {
        const path = paths[i % paths.length]!;
        return { label: path, send: () => get(path, auth) };
      },
      rounds: 3,
      roundMs: 2_000,
      everyMs: 25,
      settleWithinMs: 2 * REQUEST_BOUND_MS,
    });

    expect(server.alive(), `the server exited during the outage; it said:\n${lastWords(server.output())}`).toBe(true);
    expect(outage.unanswered).toEqual([]);
    const breaches = outage.answers.filter((a) => a.status !== 200 && !(a.status === 503 && /SERVICE_UNAVAILABLE/.test(a.body)));
    expect(
      breaches.map((a) => `${a.label}: ${a.status} ${a.body.slice(0, 200)}`),
      `the server's log of its 500s:\n${faultLines(server.output())}`,
    ).toEqual([]);
    // The outage was real: every round cut some requests off with a 503.
    expect(
      outage.unavailablePerRound.every((n) => n > 0),
      `503s per round: ${outage.unavailablePerRound}`,
    ).toBe(true);
    expect(Math.max(...outage.answers.map((a) => a.ms)), slowest(outage.answers).join("\n")).toBeLessThan(REQUEST_BOUND_MS);

    // Back to normal without a restart.
    const after = await waitFor(
      () => Promise.all(paths.map((p) => get(p, auth))),
      (answers) => answers.every((a) => a.status === 200),
      { withinMs: REQUEST_BOUND_MS, everyMs: 200, what: "every path answering 200 again" },
    );
    expect(after.map((a) => a.status)).toEqual(paths.map(() => 200));
  }, 120_000);
});
