// A service with its audit log on, for end-to-end tests: a checkpoint directory, a loopback receiver for
// AUDIT_CHECKPOINT_URL, and the offline verifier run as an auditor runs it (npm run audit:verify).
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { count } from "drizzle-orm";
import { auditUnsealed } from "../../db/schema/audit-log.js";
import { checkpointIfDue } from "../../server/audit/checkpoints.js";
import { publishPending } from "../../server/audit/publish.js";
import { sealAll } from "../../server/audit/sealer.js";
import type { TestApp, TestUser } from "./app.js";
import { testSigningKey } from "./audit-log.js";

const run = promisify(execFile);

/** An HTTP receiver on 127.0.0.1 that keeps the bodies POSTed to it. */
export async function checkpointReceiver(): Promise<{ url: string; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/checkpoints`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Settings for createTestApp: a fresh key and directory; the loop's own ticks are an hour apart, tests tick. */
export function auditLogSettings(url: string | null = null) {
  const key = testSigningKey();
  const dir = mkdtempSync(join(tmpdir(), "audit-checkpoints-"));
  return { key, dir, settings: { signer: key.signer, checkpointSeconds: 3600, destinations: { dir, url }, pollMs: 3_600_000 } };
}

/** What the service does at a checkpoint: seal, sign whatever the interval, publish. */
export async function checkpointNow(app: TestApp, settings: ReturnType<typeof auditLogSettings>["settings"]) {
  const db = app.db.db;
  // The app's own sealer may hold the head (on PostgreSQL it runs beside this): seal until nothing is queued.
  for (;;) {
    await sealAll(db);
    const [queued] = await db.select({ n: count() }).from(auditUnsealed);
    if (!queued?.n) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await checkpointIfDue(db, settings.signer, settings.checkpointSeconds, true);
  await publishPending(db, settings.destinations);
}

/** GET /api/admin/audit/export as `admin`, written to a file; answers the path and the lines. */
export async function exportToFile(app: TestApp, admin: TestUser, after?: number) {
  const res = await app.app.inject({
    method: "GET",
    url: `/api/admin/audit/export${after === undefined ? "" : `?after=${after}`}`,
    headers: admin.headers,
  });
  if (res.statusCode !== 200) throw new Error(`export: ${res.statusCode} ${res.body}`);
  const path = join(mkdtempSync(join(tmpdir(), "audit-export-")), "audit.ndjson");
  writeFileSync(path, res.body);
  return {
    path,
    lines: res.body
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { leafIndex: number; event: { id: string } }),
  };
}

/** npm run audit:verify as a separate process; answers its exit code and output. */
export async function auditVerify(exportFile: string, checkpointDir: string, verifierKey: string) {
  const keyFile = join(mkdtempSync(join(tmpdir(), "audit-key-")), "audit-log.key");
  writeFileSync(keyFile, `${verifierKey}\n`);
  const args = ["--import", "tsx", "tools/audit-verify.ts", "--export", exportFile, "--checkpoints", checkpointDir, "--key", keyFile];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: process.cwd() });
    return { code: 0, output: `${stdout}${stderr}`.trim() };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: `${e.stdout}${e.stderr}`.trim() };
  }
}
