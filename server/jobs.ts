// The jobs every instance runs beside its requests, started by buildApp and stopped when the app closes, in
// this order: the audit log's sealer (its last seal and checkpoint include the requests in flight), the
// durable push queue (when VAPID keys are set) and the retention job.
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client.js";
import { type AuditLogSettings, startAuditLog } from "./audit/log-service.js";
import { type RetentionOptions, startRetention } from "./producers/retention.js";
import { startDeliveryQueue } from "./push/delivery-queue.js";
import type { PushService } from "./push/sender.js";

export type JobDeps = {
  db: Db;
  push: PushService;
  auditLog?: AuditLogSettings;
  deliveries?: { retryBaseMs?: number; pollMs?: number; leaseSeconds?: number };
  retention?: Omit<RetentionOptions, "db" | "onError">;
};

export function startJobs(app: FastifyInstance, deps: JobDeps) {
  // Closed after the requests in flight: the last seal and checkpoint include their events.
  const auditLog = deps.auditLog
    ? startAuditLog(deps.db, deps.auditLog, (err) =>
        app.log.warn({ err }, "audit log: sealing or a checkpoint failed; the next tick tries again"),
      )
    : null;
  app.addHook("onClose", async () => auditLog?.stop());
  const queue = deps.push.vapid
    ? startDeliveryQueue({
        db: deps.db,
        push: deps.push,
        retryBaseMs: deps.deliveries?.retryBaseMs ?? 1000,
        pollMs: deps.deliveries?.pollMs,
        leaseSeconds: deps.deliveries?.leaseSeconds,
        onError: (err) => app.log.warn({ err }, "push delivery queue: an attempt failed to run"),
      })
    : null;
  app.addHook("onClose", async () => queue?.stop());
  const retention = deps.retention
    ? startRetention({
        ...deps.retention,
        db: deps.db,
        onPruned: (pruned) => {
          if (pruned.events || pruned.deliveries) app.log.info({ pruned }, "retention: old producer events and push deliveries deleted");
          deps.retention?.onPruned?.(pruned);
        },
        onError: (err) => app.log.warn({ err }, "retention: pruning failed; the next run tries again"),
      })
    : null;
  app.addHook("onClose", async () => retention?.stop());
  return { queue };
}
