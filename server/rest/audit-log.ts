// The audit log's door for readers outside the admin API (docs/api.md#audit-log): the streamed NDJSON export,
// for admins or a key with `audit:read` (a SIEM's collector), and the verifier key at a well-known path for
// anyone. The checkpoint and the proofs are procedures (server/routers/audit/).
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../../db/client.js";
import { type ExportLine, exportPage } from "../audit/proofs.js";
import type { ApiKeyVerifier } from "../auth/api-keys.js";
import { API_KEY_HEADER, requireScope } from "../auth/api-keys.js";
import type { Context } from "../context.js";
import { AppError, validationError } from "../errors/errors.js";
import { sendError } from "../errors/rest.js";
import type { NowOrLater } from "../http/now-or-later.js";

export const EXPORT_PATH = "/api/admin/audit/export";
export const LOG_KEY_PATH = "/.well-known/audit-log-key";
/** Lines read a query: the stream holds one page in memory at a time. */
const PAGE = 1000;

export type AuditLogDoorDeps = {
  db: Db;
  verifyKey: ApiKeyVerifier;
  createContext(request: FastifyRequest): NowOrLater<Context>;
  /** The verifier key in note form; null without AUDIT_SIGNING_KEY. */
  verifierKey: string | null;
};

/** `after`: absent for the whole log, else a leaf index (a whole number); -1 stands for "before the first". */
export function parseAfter(query: unknown): number {
  const q = (query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(q).filter((k) => k !== "after");
  if (unknown.length)
    throw validationError(`Unknown query parameter: ${unknown[0]}`, [{ field: unknown[0]!, message: "is not a parameter of the export" }]);
  if (q.after === undefined) return -1;
  if (typeof q.after !== "string" || !/^(0|[1-9][0-9]{0,15})$/.test(q.after) || !Number.isSafeInteger(Number(q.after))) {
    throw validationError("after must be a leaf index: a whole number from 0", [
      { field: "after", message: "must be a whole number from 0" },
    ]);
  }
  return Number(q.after);
}

async function mayExport(request: FastifyRequest, deps: AuditLogDoorDeps): Promise<void> {
  if (request.headers[API_KEY_HEADER] !== undefined) {
    requireScope(await deps.verifyKey(request.headers[API_KEY_HEADER]), "audit:read");
    return;
  }
  const ctx = await deps.createContext(request);
  if (!ctx.user || !ctx.session) throw new AppError("UNAUTHORIZED", "Authentication required");
  if (ctx.user.role !== "admin") throw new AppError("FORBIDDEN", "Platform admin role required");
}

async function* lines(db: Db, after: number): AsyncGenerator<string> {
  let cursor = after;
  for (;;) {
    const page: ExportLine[] = await exportPage(db, cursor, PAGE);
    if (page.length) yield `${page.map((line) => JSON.stringify(line)).join("\n")}\n`;
    if (page.length < PAGE) return;
    cursor = page.at(-1)!.leafIndex;
  }
}

export function registerAuditLogDoor(app: FastifyInstance, deps: AuditLogDoorDeps): void {
  app.get(EXPORT_PATH, async (request, reply) => {
    try {
      await mayExport(request, deps);
      const after = parseAfter(request.query);
      // A stream cut by a failure mid-way ends short: the reader resumes from the last leafIndex it has.
      return reply
        .type("application/x-ndjson")
        .header("cache-control", "no-store")
        .send(Readable.from(lines(deps.db, after)));
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get(LOG_KEY_PATH, async (_request, reply) => {
    if (!deps.verifierKey) {
      return sendError(reply, new AppError("NOT_FOUND", "This service signs no audit checkpoints: AUDIT_SIGNING_KEY is not set"));
    }
    return reply.type("text/plain; charset=utf-8").send(`${deps.verifierKey}\n`);
  });
}
