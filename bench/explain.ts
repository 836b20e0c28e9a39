// EXPLAIN (ANALYZE, BUFFERS) of every hot statement: the product's exactly as it sends them (captured with
// createDb's onQuery hook while its procedures and better-auth's session lookup run in this process), and
// the floor's. Writes are explained inside a transaction that is rolled back.
import type { FastifyRequest } from "fastify";
import postgres from "postgres";
import { createDb } from "../db/client.js";
import { createAuth } from "../server/auth/better-auth.js";
import { sessionTokenHash } from "../server/auth/hashed-session-tokens.js";
import { sessionResolver } from "../server/auth/session.js";
import { createContextInner } from "../server/context.js";
import { createSearchTotals } from "../server/memory/search-totals.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import { FLOOR_SQL, floorListQuery } from "./floor.js";
import type { Seeded } from "./seed.js";

type Captured = { query: string; params: unknown[] };
export type Explained = { label: string; query: string; params: unknown[]; plan: string[]; indexes: string[]; seqScans: string[] };

class Rollback extends Error {
  constructor(readonly rows: unknown) {
    super("rollback");
  }
}

/** Index names a plan reads, and the tables it scans sequentially. */
function planSummary(plan: string[]) {
  const indexes = new Set<string>();
  const seqScans = new Set<string>();
  for (const line of plan) {
    for (const m of line.matchAll(/(?:Index Only Scan|Index Scan|Bitmap Index Scan)(?: Backward)?(?: using| on) (\w+)/g))
      indexes.add(m[1]!);
    for (const m of line.matchAll(/Seq Scan on (\w+)/g)) seqScans.add(m[1]!);
  }
  return { indexes: [...indexes], seqScans: [...seqScans] };
}

async function explainOne(sql: postgres.Sql, label: string, query: string, params: unknown[]): Promise<Explained> {
  const text = `explain (analyze, buffers) ${query}`;
  const write = /^\s*(update|insert|delete)/i.test(query);
  const run = async () => {
    if (!write) return sql.unsafe(text, params as never[]);
    try {
      await sql.begin(async (tx) => {
        throw new Rollback(await tx.unsafe(text, params as never[]));
      });
    } catch (err) {
      if (err instanceof Rollback) return err.rows as postgres.RowList<postgres.Row[]>;
      throw err;
    }
    throw new Error("unreachable");
  };
  await run(); // once to warm the cache, as under load; the second run is recorded
  const rows = await run();
  const plan = rows.map((r) => String(r["QUERY PLAN"]));
  return { label, query, params, plan, ...planSummary(plan) };
}

export async function explainHotQueries(databaseUrl: string, seeded: Seeded, sampleNotificationId: string): Promise<Explained[]> {
  let captured: Captured[] = [];
  const handle = await createDb({ databaseUrl, maxConnections: 2, onQuery: (query, params) => void captured.push({ query, params }) });
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const out: Explained[] = [];
  try {
    const push = createPushService({ vapid: null });
    const searchTotals = createSearchTotals();
    const as = (u: { id: string; email: string }, role: string) =>
      createCaller(createContextInner({ db: handle.db, push, searchTotals }, { user: { id: u.id, name: u.email, email: u.email, role } }));
    const hot = as(seeded.hot, "user");
    const admin = as(seeded.admin, "admin");
    const auth = createAuth({
      db: handle.db,
      secret: "bench-explain-secret-0123456789abcdef",
      baseUrl: "http://127.0.0.1:3000",
      trustedOrigins: [],
      platformAdminEmails: [],
    });

    const capture = async (label: string, call: () => Promise<unknown>) => {
      captured = [];
      await call();
      const statements = captured;
      statements.forEach(
        (c, i) =>
          void out.push({
            label: statements.length > 1 ? `${label} [${i + 1}/${statements.length}]` : label,
            query: c.query,
            params: c.params,
            plan: [],
            indexes: [],
            seqScans: [],
          }),
      );
    };
    const resolveSession = sessionResolver(auth, handle.db);
    await capture("product: session lookup (bearer token)", async () =>
      resolveSession({ headers: { authorization: `Bearer ${seeded.hot.token}` } } as FastifyRequest),
    );
    await capture("product: notifications.list page=1 limit=30", () => hot.notifications.list({ page: 1, limit: 30 }));
    await capture("product: notifications.list category=billing", () =>
      hot.notifications.list({ page: 1, limit: 30, category: "billing" }),
    );
    await capture("product: notifications.list search=refund", () => hot.notifications.list({ page: 1, limit: 30, search: "refund" }));
    // Asked again in the same state of the inbox: the remembered total stands in for the count.
    await capture("product: notifications.list search=refund, total remembered", () =>
      hot.notifications.list({ page: 1, limit: 30, search: "refund" }),
    );
    await capture("product: notifications.unreadCount", () => hot.notifications.unreadCount());
    await capture("product: notifications.markRead", () => hot.notifications.markRead({ id: sampleNotificationId }));
    await capture("product: restriction.getPro", () => admin.restriction.getPro({ proId: seeded.proIds[1]! }));

    const floor: Captured[] = [
      { query: FLOOR_SQL.session, params: [sessionTokenHash(seeded.hot.token)] },
      { query: floorListQuery({ category: false, search: false }), params: [seeded.hot.id, 30, 0] },
      { query: floorListQuery({ category: true, search: false }), params: [seeded.hot.id, "billing", 30, 0] },
      { query: floorListQuery({ category: false, search: true }), params: [seeded.hot.id, "%refund%", 30, 0] },
      { query: FLOOR_SQL.unreadCount, params: [seeded.hot.id] },
      { query: FLOOR_SQL.markRead, params: [sampleNotificationId, seeded.hot.id] },
      { query: FLOOR_SQL.proStatus, params: [seeded.proIds[1]!] },
    ];
    const floorLabels = [
      "session lookup",
      "list page=1 limit=30",
      "list category=billing",
      "list search=refund",
      "unread-count",
      "mark-read",
      "pro-status",
    ];
    floor.forEach((c, i) => void out.push({ label: `floor: ${floorLabels[i]}`, ...c, plan: [], indexes: [], seqScans: [] }));

    for (let i = 0; i < out.length; i++) {
      const e = out[i]!;
      out[i] = await explainOne(sql, e.label, e.query, e.params);
    }
  } finally {
    await handle.close();
    await sql.end({ timeout: 5 });
  }
  return out;
}

export function formatExplained(title: string, explained: Explained[]): string {
  const lines = [`# ${title}`, ""];
  lines.push("Summary (indexes read; tables scanned sequentially):", "");
  for (const e of explained) {
    const seq = e.seqScans.length ? `  SEQ SCAN: ${e.seqScans.join(", ")}` : "";
    lines.push(`- ${e.label}: ${e.indexes.join(", ") || "(no index)"}${seq}`);
  }
  for (const e of explained) {
    lines.push("", `## ${e.label}`, "", e.query.replace(/\s+/g, " ").trim(), `params: ${JSON.stringify(e.params)}`, "");
    lines.push(...e.plan);
  }
  return `${lines.join("\n")}\n`;
}
