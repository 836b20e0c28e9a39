// The soak's server and database: a fresh PostgreSQL database, the real service on a free port with the pros, and their teardown.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import webpush from "web-push";
import { pros } from "../../db/schema/index.js";
import { loadConfig } from "../../server/config.js";
import { openService } from "../../server/service.js";
import { startPushService } from "../../tools/local-push-service.js";
import { freePort } from "../helpers/net.js";
import { proIds, SERVER_URL } from "./settings.js";

export const adminEmail = "soak-admin@soak.test";

/**
 * Connects to SERVER_URL and starts the local push service; start() then creates the database and the server,
 * close() stops whatever was started and drops the database (call it whether or not start() succeeded).
 */
export async function soakServer() {
  const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  const dbName = `rn_soak_${randomBytes(6).toString("hex")}`;
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${dbName}`;
  const push = await startPushService();
  let service: Awaited<ReturnType<typeof openService>> | undefined;
  return {
    dbName,
    dbHost: dbUrl.host,
    push,
    /** Creates the database and serves on 127.0.0.1 with the pros in place; returns the server's base URL. */
    async start(): Promise<string> {
      await admin.unsafe(`create database ${dbName}`);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const vapid = webpush.generateVAPIDKeys();
      const config = loadConfig({
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: dbUrl.toString(),
        BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
        LOG_LEVEL: "error",
        PLATFORM_ADMIN_EMAILS: adminEmail,
        VAPID_PUBLIC_KEY: vapid.publicKey,
        VAPID_PRIVATE_KEY: vapid.privateKey,
        VAPID_SUBJECT: "mailto:soak@soak.test",
        PUSH_ALLOW_HTTP_ENDPOINTS: "true",
        PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
      });
      service = await openService(config);
      await service.app.listen({ port, host: "127.0.0.1" });
      await service.handle.db.insert(pros).values(proIds.map((id) => ({ id, name: `Soak pro ${id}` })));
      return base;
    },
    async close() {
      await service?.app.close();
      await service?.handle.close();
      await push.close();
      await admin.unsafe(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    },
  };
}
