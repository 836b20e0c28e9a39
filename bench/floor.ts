// The floor: the fastest straightforward server that answers the benchmark's scenarios. Plain Fastify,
// hand-written SQL through postgres.js (prepared statements), the same per-request session lookup as the
// product (sessions by token joined to users, expiry checked in SQL), no tRPC, no zod, no envelope.
// It is the reference the product is measured against in the same run, not a second implementation of
// the API: only the benchmarked paths exist, and errors are bare status codes with a short JSON body.
//
// Run alone: FLOOR_DATABASE_URL=postgres://… node --import tsx bench/floor.ts (prints the port it got).

import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import postgres from "postgres";
import { sessionTokenHash } from "../server/auth/hashed-session-tokens.js";
import { bearerSessionToken, cookieSessionToken } from "../server/auth/session-token.js";
import { evaluate, FLAG_KEY, flagsEtag, matchesEtag, targetingKeyOf } from "../server/ofrep/evaluation.js";
import { STREAM_TOKEN_TTL_MS, streamToken } from "../server/ofrep/stream-token.js";
import { serveForParent } from "./child.js";
import { floorIngest } from "./floor-ingest.js";
import { SESSION_COOKIE } from "./scenarios.js";

type Caller = { id: string; name: string; email: string; role: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CATEGORIES = new Set(["messages", "leads", "reviews", "billing", "account", "system"]);

/** The statements, as text so that bench/explain.ts can show their plans beside the product's. */
export const FLOOR_SQL = {
  session: `select u.id, u.name, u.email, u.role
            from sessions s join users u on u.id = s.user_id
            where s.token = $1 and s.expires_at > now()`,
  unreadCount: `select coalesce(sum(unread), 0)::int as count from notification_counts where user_id = $1`,
  markRead: `update notifications set read_at = coalesce(read_at, now())
             where id = $1 and user_id = $2 and deleted_at is null returning id`,
  owner: `select user_id from notifications where id = $1 and deleted_at is null`,
  proStatus: `select pro_id as "proId", restriction_active as "restrictionActive", cohort_id as "cohortId",
                     updated_at as "updatedAt"
              from pro_restriction_status where pro_id = $1`,
  /** A service API key by its secret's hash, if it is usable now; whether it may read flags. */
  apiKey: `select id, 'flags:read' = any(scopes) as "readsFlags" from api_keys
           where secret_hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())`,
  /** A usable key by its secret's hash: its name (the producer) and whether it may send notifications. */
  producerKey: `select name, 'notifications:write' = any(scopes) as "writes" from api_keys
                where secret_hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())`,
};

/**
 * The inbox page and both counts in one statement, as the product sends it: the counts from the caller's
 * notification_counts rows (one aggregate row, even with none), the page left-joined to them so a page
 * past the end still carries the counts. A search total counts the matching rows. The ORDER BY spells out
 * NULLS LAST so it matches the inbox indexes (`date_created DESC NULLS LAST, id DESC NULLS LAST`) and the
 * page is read from the index.
 */
export function floorListQuery(options: { category: boolean; search: boolean }): string {
  let param = 1;
  const filters: string[] = [];
  if (options.category) filters.push(`category = $${++param}`);
  const categoryParam = param;
  if (options.search) {
    param++;
    filters.push(`(title ilike $${param} or body ilike $${param})`);
  }
  const where = ["user_id = $1", "deleted_at is null", ...filters].join(" and ");
  const limit = `$${++param}`;
  const offset = `$${++param}`;
  const total = options.search
    ? `(select count(*) from notifications where ${where})::int`
    : options.category
      ? `coalesce(sum(total) filter (where category = $${categoryParam}), 0)::int`
      : `coalesce(sum(total), 0)::int`;
  return `
    select counts.total, counts.unread, page.*
    from (select ${total} as total, coalesce(sum(unread), 0)::int as unread
          from notification_counts where user_id = $1) counts
    left join (
      select id, user_id, event_type, category, title, body, data, date_created, read_at
      from notifications where ${where}
      order by date_created desc nulls last, id desc nulls last
      limit ${limit} offset ${offset}
    ) page on true
    order by page.date_created desc nulls last, page.id desc nulls last`;
}

/** The same page/limit rules as the product (docs/api.md#inbox-listing), written inline. */
function whole(value: unknown, fallback: number): number {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== "string" || first.trim() === "") return fallback;
  const n = Math.floor(Number(first));
  return Number.isFinite(n) ? n : fallback;
}

/** postgres.js parses jsonb; the API shows objects only. */
const dataObject = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** Escapes LIKE wildcards so the search is a literal substring, as the product's is. */
const containsPattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

type ListRow = {
  total: number;
  unread: number;
  id: string | null;
  user_id: string;
  event_type: string;
  category: string;
  title: string;
  body: string | null;
  data: unknown;
  date_created: Date;
  read_at: Date | null;
};

export function buildFloor(options: { databaseUrl: string; poolSize: number; authSecret: string }) {
  const sql = postgres(options.databaseUrl, { max: options.poolSize, onnotice: () => {}, idle_timeout: 30 });
  const run = <T extends object>(text: string, params: (string | number)[]) => sql.unsafe<T[]>(text, params, { prepare: true });

  /** The id of the request's API key (X-API-Key) when it may read flags; else answers 401 or 403 and returns null. */
  async function flagsReader(request: FastifyRequest, reply: FastifyReply): Promise<string | null> {
    const secret = request.headers["x-api-key"];
    const hash = typeof secret === "string" && secret !== "" ? createHash("sha256").update(secret).digest("hex") : null;
    const [key] = hash ? await run<{ id: string; readsFlags: boolean }>(FLOOR_SQL.apiKey, [hash]) : [];
    if (!key) {
      reply.status(401).send({ errorDetails: "unauthorized" });
      return null;
    }
    if (!key.readsFlags) {
      reply.status(403).send({ errorDetails: "forbidden" });
      return null;
    }
    return key.id;
  }

  /** The producer (the key's name) when the request's key may send notifications; else answers 401 or 403 and returns null. */
  async function producerOf(request: FastifyRequest, reply: FastifyReply): Promise<string | null> {
    const secret = request.headers["x-api-key"];
    const hash = typeof secret === "string" && secret !== "" ? createHash("sha256").update(secret).digest("hex") : null;
    const [key] = hash ? await run<{ name: string; writes: boolean }>(FLOOR_SQL.producerKey, [hash]) : [];
    if (!key) {
      reply.status(401).send({ error: "unauthorized" });
      return null;
    }
    if (!key.writes) {
      reply.status(403).send({ error: "forbidden" });
      return null;
    }
    return key.name;
  }

  async function caller(request: FastifyRequest, reply: FastifyReply): Promise<Caller | null> {
    // The header parsing is the product's own pure function: the same rules, no I/O.
    const token =
      bearerSessionToken(request.headers.authorization, options.authSecret) ??
      cookieSessionToken(request.headers.cookie, SESSION_COOKIE, options.authSecret);
    // The table holds each token's SHA-256 (server/auth/hashed-session-tokens.ts), so the floor hashes too.
    const [user] = token ? await run<Caller>(FLOOR_SQL.session, [sessionTokenHash(token)]) : [];
    if (!user) {
      reply.status(401).send({ error: "unauthorized" });
      return null;
    }
    return user;
  }

  const app = Fastify({ logger: false });

  app.get("/api/notifications", async (request, reply) => {
    const user = await caller(request, reply);
    if (!user) return reply;
    const query = request.query as Record<string, unknown>;
    const pageNumber = Math.min(Math.max(whole(query.page, 1), 1), Math.floor(Number.MAX_SAFE_INTEGER / 100));
    const rawLimit = whole(query.limit, 30);
    const limit = rawLimit === 0 ? 30 : Math.min(Math.max(rawLimit, 1), 100);
    const categoryValue = Array.isArray(query.category) ? query.category[0] : query.category;
    const category = typeof categoryValue === "string" && CATEGORIES.has(categoryValue) ? categoryValue : null;
    const searchValue = Array.isArray(query.search) ? query.search[0] : query.search;
    const search = typeof searchValue === "string" && searchValue !== "" ? searchValue : null;

    const params: (string | number)[] = [user.id];
    if (category) params.push(category);
    if (search) params.push(containsPattern(search));
    params.push(limit, (pageNumber - 1) * limit);
    const rows = await run<ListRow>(floorListQuery({ category: !!category, search: !!search }), params);
    const total = rows[0]?.total ?? 0;
    return {
      notifications: rows
        .filter((r) => r.id !== null)
        .map((r) => ({
          id: r.id,
          userId: r.user_id,
          eventType: r.event_type,
          category: r.category,
          title: r.title,
          body: r.body,
          dateCreated: r.date_created,
          readAt: r.read_at,
          data: dataObject(r.data),
        })),
      total,
      unread_count: rows[0]?.unread ?? 0,
      page: pageNumber,
      has_more: pageNumber * limit < total,
    };
  });

  app.get("/api/notifications/unread-count", async (request, reply) => {
    const user = await caller(request, reply);
    if (!user) return reply;
    const [row] = await run<{ count: number }>(FLOOR_SQL.unreadCount, [user.id]);
    return { count: row?.count ?? 0 };
  });

  app.patch("/api/notifications/:id/read", async (request, reply) => {
    const user = await caller(request, reply);
    if (!user) return reply;
    const { id } = request.params as { id: string };
    if (!UUID.test(id)) return reply.status(404).send({ error: "not found" });
    const changed = await run(FLOOR_SQL.markRead, [id, user.id]);
    if (changed.length) return { success: true };
    const [other] = await run(FLOOR_SQL.owner, [id]);
    return reply.status(other ? 403 : 404).send({ error: other ? "forbidden" : "not found" });
  });

  app.get("/api/admin/restriction/:proId", async (request, reply) => {
    const user = await caller(request, reply);
    if (!user) return reply;
    if (user.role !== "admin") return reply.status(403).send({ error: "forbidden" });
    const { proId } = request.params as { proId: string };
    const [status] = await run(FLOOR_SQL.proStatus, [proId]);
    return status ?? { proId, restrictionActive: false, cohortId: null, updatedAt: null };
  });

  // OFREP (server/ofrep/routes.ts): one key lookup by hash and one status read, the answer built with the
  // product's own pure functions (evaluation, ETag, the stream URL's signed token), no rate limit.
  app.post(`/ofrep/v1/evaluate/flags/:key`, async (request, reply) => {
    if (!(await flagsReader(request, reply))) return reply;
    const { key } = request.params as { key: string };
    if (key !== FLAG_KEY) return reply.status(404).send({ key, errorCode: "FLAG_NOT_FOUND" });
    const proId = targetingKeyOf(request.body);
    if (typeof proId !== "string") return reply.status(400).send({ key, ...proId });
    const [status] = await run<{ restrictionActive: boolean; cohortId: string | null }>(FLOOR_SQL.proStatus, [proId]);
    return evaluate(status);
  });

  app.post(`/ofrep/v1/evaluate/flags`, async (request, reply) => {
    const keyId = await flagsReader(request, reply);
    if (!keyId) return reply;
    const proId = targetingKeyOf(request.body);
    if (typeof proId !== "string") return reply.status(400).send(proId);
    const [status] = await run<{ restrictionActive: boolean; cohortId: string | null }>(FLOOR_SQL.proStatus, [proId]);
    const flags = [evaluate(status)];
    const etag = flagsEtag(flags);
    reply.header("etag", etag).header("cache-control", "no-cache");
    if (matchesEtag(request.headers["if-none-match"], etag)) return reply.status(304).send();
    const token = streamToken(options.authSecret, { keyId, targetingKey: proId, expiresAt: Date.now() + STREAM_TOKEN_TTL_MS });
    return {
      flags,
      eventStreams: [{ type: "sse", url: `${request.protocol}://${request.host}/ofrep/v1/events?token=${encodeURIComponent(token)}` }],
    };
  });

  // The producer API, its handler in bench/floor-ingest.ts.
  app.post("/api/notifications/events", floorIngest(sql, producerOf));

  return {
    app,
    sql,
    async close() {
      await app.close();
      await sql.end({ timeout: 5 });
    },
  };
}

/**
 * Cohort activation as one hand-written statement inside one transaction: lock the cohort, read its
 * latest gate check, flag every pro (in pro id order) and update the cohort. Used by the in-process
 * activation scenario as the floor for the product's activateCohort.
 */
export const FLOOR_ACTIVATE_SQL = `
  with cohort as (
    select c.id, c.pro_ids,
           (select g.all_gates_met from gate_checks g where g.cohort_id = c.id order by g.seq desc limit 1) as ok
    from restriction_cohorts c where c.id = $1 for update
  ),
  flagged as (
    insert into pro_restriction_status (pro_id, restriction_active, cohort_id, updated_at)
    select p, true, cohort.id, now() from cohort, unnest(cohort.pro_ids) p where cohort.ok order by p
    on conflict (pro_id) do update set restriction_active = excluded.restriction_active,
      cohort_id = excluded.cohort_id, updated_at = excluded.updated_at
  )
  update restriction_cohorts set status = 'active', activated_at = now()
  where id = (select id from cohort where ok)
  returning id, status`;

// As a child process of bench/run.ts (or alone): listen on loopback, report the port, stop on request.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const databaseUrl = process.env.FLOOR_DATABASE_URL;
  if (!databaseUrl) throw new Error("FLOOR_DATABASE_URL is required");
  const floor = buildFloor({
    databaseUrl,
    poolSize: Number(process.env.FLOOR_POOL_SIZE ?? 10),
    authSecret: process.env.BETTER_AUTH_SECRET ?? "",
  });
  const address = await floor.app.listen({ host: "127.0.0.1", port: Number(process.env.PORT ?? 0) });
  serveForParent("floor", address, () => floor.close());
}
