// What every part of one `npm run bench` shares: its options and keys, the log, the database and servers in use, and their cleanup.
import { randomBytes } from "node:crypto";
import os from "node:os";
import { fileURLToPath } from "node:url";
import webpush from "web-push";
import type { LocalPushService } from "../tools/local-push-service.js";
import type { BenchDatabase } from "./database.js";
import { parseOptions } from "./options.js";
import { ADMIN_EMAIL } from "./seed.js";
import type { RunningServer } from "./servers.js";

export const options = parseOptions(process.argv.slice(2), process.env);
export const resultsDir = fileURLToPath(new URL(options.quick ? "results/tmp/" : "results/", import.meta.url));
export const profileDir = fileURLToPath(new URL("results/tmp/profiles/", import.meta.url));
export const secret = randomBytes(32).toString("base64url");
export const vapid = webpush.generateVAPIDKeys();
export const VAPID_SUBJECT = "mailto:bench@bench.test";

export const log = (message: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
export const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));
export const wanted = (name: string) => options.only.length === 0 || options.only.includes(name);

/** What is open now: the database of the measurement running, the push service, the servers started. */
export const live: { db?: BenchDatabase; pushService?: LocalPushService; running: Set<RunningServer> } = { running: new Set() };

export async function cleanup() {
  await Promise.allSettled([...live.running].map((s) => s.stop()));
  live.running.clear();
  await live.pushService?.close().catch(() => {});
  const db = live.db;
  if (db) {
    log(`dropping database ${db.name}`);
    await db.drop().catch((err) => console.error(`could not drop ${db.name}: ${(err as Error).message}`));
  }
}

/** The product's environment: `openService` on the bench database, as `npm start` would run it. */
export function productEnv(): Record<string, string> {
  return {
    DATABASE_URL: live.db!.url,
    BETTER_AUTH_SECRET: secret,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "silent",
    // One key drives every OFREP scenario: the default 30,000 a minute was met at ~2,500 evaluations a second.
    OFREP_REQUESTS_PER_MINUTE: "100000000",
    PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL,
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    VAPID_SUBJECT,
    PUSH_ALLOW_HTTP_ENDPOINTS: "true",
    // The bench's push service listens on 127.0.0.1, which push endpoints may not reach otherwise.
    PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
  };
}

/** The floor's environment (bench/floor.ts) on the database at `url`. */
export const floorEnv = (url: string): Record<string, string> => ({
  FLOOR_DATABASE_URL: url,
  FLOOR_POOL_SIZE: String(options.poolSize),
  BETTER_AUTH_SECRET: secret,
});

export const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

/** The machine and the database server; `setup` lines go before the load average. */
export async function environment(setup: string[] = []): Promise<string[]> {
  const sql = live.db!.sql;
  const [pg] = await sql<{ version: string }[]>`select version()`;
  const settings = await sql<{ name: string; setting: string; unit: string | null }[]>`
    select name, setting, unit from pg_settings where name in ('shared_buffers', 'work_mem', 'max_connections', 'jit')`;
  const cpus = os.cpus();
  return [
    `- machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; ${pg?.version.split(",")[0] ?? "PostgreSQL ?"} on 127.0.0.1 (${settings.map((s) => `${s.name}=${s.setting}${s.unit ?? ""}`).join(", ")})`,
    ...setup,
    `- load average when the run started: ${loadAverage()} (1 / 5 / 15 min; the machine is shared)`,
  ];
}
