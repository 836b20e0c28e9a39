// The real server process (server/main.ts) on PostgreSQL while backends are terminated over and over, as
// in a database restart or failover: it must keep running, answer 503 while the database is away, and serve
// again afterwards. An in-process app cannot show this: the harm is an unhandled rejection, which Node
// turns into an exit of the whole process.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}
const serverUrl = process.env.TEST_DATABASE_URL;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the server process while PostgreSQL backends are terminated (PostgreSQL)", () => {
  const t = useTestApp();
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const kill: (() => void)[] = [];
  afterAll(async () => {
    for (const k of kill) k();
    await admin.end();
  });

  it("keeps running through repeated terminations, answers only 200 or 503, and serves again afterwards", async () => {
    const [row] = (await t().db.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
    const databaseName = row!.name;
    const databaseUrl = new URL(serverUrl);
    databaseUrl.pathname = `/${databaseName}`;

    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const base = `http://127.0.0.1:${port}`;

    const output: string[] = [];
    const proc = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: databaseUrl.toString(),
        BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    kill.push(() => proc.exitCode === null && proc.signalCode === null && proc.kill("SIGKILL"));
    proc.stdout!.on("data", (d: Buffer) => output.push(d.toString()));
    proc.stderr!.on("data", (d: Buffer) => output.push(d.toString()));
    const alive = () => proc.exitCode === null && proc.signalCode === null;

    const get = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, { headers }).then(
        async (res) => ({ status: res.status, body: await res.text() }),
        (err: Error) => ({ status: 0, body: String(err.cause ?? err) }),
      );
    const deadline = Date.now() + 45_000;
    while ((await get("/health/ready")).status !== 200) {
      if (Date.now() > deadline || !alive()) throw new Error(`server did not get ready:\n${output.join("")}`);
      await sleep(100);
    }
    const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: JSON.stringify({ name: "Outage", email: `outage-${randomBytes(4).toString("hex")}@test.local`, password: "correct-horse-battery" }),
    });
    expect(signUp.status).toBe(200);
    const auth = { authorization: `Bearer ${((await signUp.json()) as { token: string }).token}` };
    const paths = ["/health/ready", "/api/notifications/unread-count", "/api/notifications?limit=5", "/trpc/notifications.unreadCount"];

    // Traffic all along, and every backend terminated every 25 ms for 3 s: some terminations land on
    // connections the pool is just opening, as they do while a database restarts.
    const answers: { path: string; status: number; body: string }[] = [];
    let stop = false;
    const workers = Array.from({ length: 12 }, async (_, w) => {
      for (let i = 0; !stop && alive() && i < 5_000; i++) {
        const path = paths[(w + i) % paths.length]!;
        answers.push({ path, ...(await get(path, auth)) });
      }
    });
    const until = Date.now() + 3_000;
    while (Date.now() < until && alive()) {
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${databaseName} and pid <> pg_backend_pid()`;
      await sleep(25);
    }
    await sleep(500);
    stop = true;
    await Promise.all(workers);

    // Its last words: Node's report of the uncaught error, without the stack (better-auth logs a lot before).
    const text = output.join("");
    const crash = text.lastIndexOf("triggerUncaughtException");
    const said = (crash >= 0 ? text.slice(crash) : text.slice(-1_500))
      .split("\n")
      .filter((line) => !/^\s+at /.test(line))
      .join("\n")
      .slice(0, 1_500);
    expect(alive(), `the server exited (code ${proc.exitCode}, signal ${proc.signalCode}) during the outage; it said:\n${said}`).toBe(true);
    const breaches = answers.filter(
      (a) => a.status !== 200 && !(a.status === 503 && /SERVICE_UNAVAILABLE/.test(a.body)),
    );
    expect(breaches.map((a) => `${a.path}: ${a.status} ${a.body.slice(0, 200)}`)).toEqual([]);

    // Back to normal without a restart.
    const recovered = Date.now() + 20_000;
    let after = await Promise.all(paths.map((p) => get(p, auth)));
    while (after.some((a) => a.status !== 200) && Date.now() < recovered) {
      await sleep(200);
      after = await Promise.all(paths.map((p) => get(p, auth)));
    }
    expect(after.map((a) => a.status)).toEqual(paths.map(() => 200));
  }, 90_000);
});
