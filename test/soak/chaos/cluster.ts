// The system under test: a fresh PostgreSQL database, instance 0 served from this process (openService, as
// server/main.ts runs it, so the soak's heap check sees it) and the others as `npm start` processes
// (`node build/server/main.js`, what npm start runs after building), each on its own port, all on the one database.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import webpush from "web-push";
import { loadConfig } from "../../../server/config.js";
import { openService } from "../../../server/service.js";
import { freePort } from "../../helpers/net.js";
import { DB_DEADLINE_SECONDS, INSTANCES, proIds, SERVER_URL } from "../settings.js";
import { now, write } from "./history.js";

export const ADMIN_EMAILS = ["soak-admin-a@soak.test", "soak-admin-b@soak.test"];
export const ADMIN_PASSWORD = "soak-admin-password-0123";

type Child = { proc: ChildProcess; output: string[] };

export async function startCluster() {
  const server = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  const dbName = `rn_soak_${randomBytes(6).toString("hex")}`;
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${dbName}`;
  await server.unsafe(`create database ${dbName}`);
  const vapid = webpush.generateVAPIDKeys();
  const env: Record<string, string> = {
    DATABASE_URL: dbUrl.toString(),
    BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
    // The faults make errors on purpose: the history, not the log, says what happened.
    LOG_LEVEL: "fatal",
    APPROVALS: "required",
    ADMIN_EMAILS: ADMIN_EMAILS.join(","),
    ADMIN_PASSWORD,
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    VAPID_SUBJECT: "mailto:soak@soak.test",
    PUSH_ALLOW_HTTP_ENDPOINTS: "true",
    PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
    PUSH_RETRY_BASE_MS: "500",
    DB_QUERY_TIMEOUT_SECONDS: String(DB_DEADLINE_SECONDS),
  };
  const ports: number[] = [];
  for (let i = 0; i < INSTANCES; i++) ports.push(await freePort());
  const urls = ports.map((p) => `http://127.0.0.1:${p}`);

  // Instance 0: in this process, never killed (the faults kill the others).
  const service = await openService(loadConfig({ ...env, LOG_LEVEL: "silent", PORT: String(ports[0]), HOST: "127.0.0.1" }));
  await service.app.listen({ port: ports[0]!, host: "127.0.0.1" });
  const db = postgres(dbUrl.toString(), { max: 2, onnotice: () => {} });
  await db`insert into pros ${db(proIds.map((id) => ({ id, name: `Soak pro ${id}` })))}`;

  const children = new Map<number, Child>();
  const spawnChild = async (i: number) => {
    const output: string[] = [];
    const proc = spawn(process.execPath, ["build/server/main.js"], {
      env: { ...process.env, ...env, PORT: String(ports[i]), HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The last lines only: enough to say why a start failed, without growing this process's heap.
    const keep = (d: Buffer) => {
      output.push(d.toString());
      if (output.length > 50) output.shift();
    };
    proc.stdout!.on("data", keep);
    proc.stderr!.on("data", keep);
    children.set(i, { proc, output });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = await fetch(`${urls[i]}/health/ready`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) break;
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill("SIGKILL");
        throw new Error(`instance ${i} did not get ready:\n${output.join("")}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    write({ t: "life", inst: i, ev: "started", at: now() });
  };
  const exited = (proc: ChildProcess) =>
    proc.exitCode !== null || proc.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  for (let i = 1; i < INSTANCES; i++) await spawnChild(i);

  return {
    dbName,
    dbUrl: dbUrl.toString(),
    urls,
    /** The soak database, for the faults and the final read. */
    db,
    /** The PostgreSQL server's maintenance connection (database postgres). */
    server,
    /** Instances the faults may kill: every one but instance 0. */
    killable: urls.map((_, i) => i).filter((i) => i > 0),
    alive: (i: number) => i === 0 || (children.get(i)?.proc.exitCode === null && children.get(i)?.proc.signalCode === null),
    async kill(i: number) {
      const child = children.get(i)!;
      write({ t: "life", inst: i, ev: "killed", at: now() });
      child.proc.kill("SIGKILL");
      await exited(child.proc);
    },
    /** SIGTERM: the instance finishes what it is doing and exits; resolves to its exit code. */
    async terminate(i: number) {
      const child = children.get(i)!;
      write({ t: "life", inst: i, ev: "terminated", at: now() });
      child.proc.kill("SIGTERM");
      const timer = setTimeout(() => child.proc.kill("SIGKILL"), 30_000);
      await exited(child.proc);
      clearTimeout(timer);
      return child.proc.exitCode;
    },
    /**
     * Starts instance `i` again, as a supervisor would: a start that fails (the database refusing or cutting
     * its connections meanwhile) is tried again, up to 5 times. Resolves to how many starts failed.
     */
    async restart(i: number): Promise<number> {
      for (let failed = 0; ; failed++) {
        try {
          await spawnChild(i);
          return failed;
        } catch (err) {
          if (failed >= 4) throw err;
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    },
    output: (i: number) => children.get(i)?.output.join("") ?? "",
    async close() {
      for (const child of children.values()) {
        child.proc.kill("SIGTERM");
        await exited(child.proc);
      }
      await service.app.close().catch(() => {});
      await service.handle.close().catch(() => {});
      await db.end();
      await server.unsafe(`alter database ${dbName} allow_connections true`).catch(() => {});
      await server.unsafe(`drop database if exists ${dbName} with (force)`);
      await server.end();
    },
  };
}

export type Cluster = Awaited<ReturnType<typeof startCluster>>;
