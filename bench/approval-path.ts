// The four-eyes approval path timed in this process (issue AB asks its cost before and after the audit log):
// with APPROVALS=required, one admin files a change request to activate a seeded cohort of --cohort-size pros
// and a second admin approves it, which applies the activation; three audit events per sample. Each sample
// is a cohort never activated before, so every one does the same work. Run on a fresh PostgreSQL database:
//   node --import tsx bench/approval-path.ts [--pros 20000] [--cohort-size 500]   (BENCH_DATABASE_URL)
import { parseArgs } from "node:util";
import { createDb } from "../db/client.js";
import { createContextInner } from "../server/context.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import { createBenchDatabase } from "./database.js";
import { summarize } from "./inprocess.js";
import { seedBase } from "./seed.js";

const { values } = parseArgs({ options: { pros: { type: "string" }, "cohort-size": { type: "string" } } });
const pros = Number(values.pros ?? 20_000);
const cohortSize = Number(values["cohort-size"] ?? 500);
const serverUrl = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";

const db = await createBenchDatabase(serverUrl);
try {
  const seeded = await seedBase(db.sql, db.url, "bench-secret-approval-path-0123456789", { users: 2, pros, cohortSize });
  const handle = await createDb({ databaseUrl: db.url, maxConnections: 2 });
  const services = { db: handle.db, push: createPushService({ vapid: null }), approvals: "required" as const };
  // The second admin is an ordinary seeded user acting with the admin role: only a different person is needed.
  const asAdmin = (u: { id: string; email: string }, name: string) =>
    createCaller(createContextInner(services, { user: { id: u.id, name, email: u.email, role: "admin" } })).restriction;
  const requester = asAdmin(seeded.admin, "bench-admin");
  const approver = asAdmin(seeded.hot, "bench-approver");
  const times: number[] = [];
  try {
    for (const [i, id] of seeded.cohortIds.entries()) {
      const started = performance.now();
      const { changeRequest } = await requester.createChangeRequest({ id, action: "activate", reason: "gates passed" });
      const approved = await approver.approveChangeRequest({ id: changeRequest.id, comment: "checked" });
      const ms = performance.now() - started;
      if (approved.changeRequest.status !== "applied") throw new Error(`change request on ${id} not applied`);
      // The first two are the warm-up (code compiled, statements prepared).
      if (i >= 2) times.push(ms);
    }
  } finally {
    await handle.close();
  }
  const t = summarize(times);
  const [row] = await db.sql<{ events: number }[]>`select count(*)::int as events from audit_events`;
  console.log(
    `approval path (create + approve, cohort of ${cohortSize}): n=${times.length} ` +
      `p50 ${t.p50.toFixed(1)} ms, p99 ${t.p99.toFixed(1)} ms, max ${t.max.toFixed(1)} ms; audit events ${row?.events}`,
  );
} finally {
  await db.drop();
}
