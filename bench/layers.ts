// Where the product's time per request goes: each layer of one request timed alone, in this process, one
// call at a time (no concurrency, so CPU time is this process's own work for that call). Compared with the
// floor doing the same job, it names the layer that costs what.
import { performance } from "node:perf_hooks";
import type { FastifyInstance, FastifyRequest } from "fastify";
import postgres from "postgres";
import { createDb } from "../db/client.js";
import { buildApp } from "../server/app.js";
import { createAuth } from "../server/auth/better-auth.js";
import { sessionResolver } from "../server/auth/session.js";
import { createContextInner } from "../server/context.js";
import { createPushService } from "../server/push/sender.js";
import { createCaller } from "../server/routers/index.js";
import { buildFloor, FLOOR_SQL, floorListQuery } from "./floor.js";
import type { Seeded } from "./seed.js";

export type LayerTiming = { layer: string; calls: number; wallMs: number; cpuMs: number };

async function time(layer: string, calls: number, fn: () => Promise<unknown>): Promise<LayerTiming> {
  for (let i = 0; i < Math.min(200, calls); i++) await fn(); // warm: JIT, connections, plan caches
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < calls; i++) await fn();
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { layer, calls, wallMs: wall / calls, cpuMs: (used.user + used.system) / 1000 / calls };
}

async function inject(app: FastifyInstance, url: string, token: string) {
  const res = await app.inject({ method: "GET", url, headers: { authorization: `Bearer ${token}` } });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
}

export async function measureLayers(databaseUrl: string, seeded: Seeded, calls: number): Promise<LayerTiming[]> {
  const handle = await createDb({ databaseUrl, maxConnections: 10 });
  const sql = postgres(databaseUrl, { max: 10, onnotice: () => {} });
  const secret = "bench-layers-secret-0123456789abcdefgh";
  const auth = createAuth({ db: handle.db, secret, baseUrl: "http://127.0.0.1:3000", trustedOrigins: [], platformAdminEmails: [] });
  const push = createPushService({ vapid: null });
  const app = await buildApp({ config: { corsOrigins: [], logLevel: "silent" }, db: handle.db, auth, push, logger: false });
  await app.ready();
  const resolveSession = sessionResolver(auth, handle.db);
  const floor = buildFloor({ databaseUrl, poolSize: 10, authSecret: secret });
  await floor.app.ready();

  const hot = seeded.hot;
  const user = { id: hot.id, name: "user-000", email: hot.email, role: "user" };
  const caller = createCaller(createContextInner({ db: handle.db, push }, { user }));
  const headers = () => new Headers({ authorization: `Bearer ${hot.token}` });
  // A new request each call: the resolver keeps one answer per request object (server/auth/session.ts).
  const request = () => ({ headers: { authorization: `Bearer ${hot.token}` } }) as FastifyRequest;
  const prepared = (text: string, params: (string | number)[]) => sql.unsafe(text, params, { prepare: true });

  const out: LayerTiming[] = [];
  try {
    // The session.
    out.push(await time("session: postgres.js, one prepared join (the floor's)", calls, () => prepared(FLOOR_SQL.session, [hot.token])));
    out.push(
      await time("session: better-auth auth.api.getSession (what the product used to call)", calls, () =>
        auth.api.getSession({ headers: headers() }),
      ),
    );
    out.push(
      await time("session: the product's resolver (one prepared join through Drizzle)", calls, async () => resolveSession(request())),
    );
    // unread-count.
    out.push(await time("unread-count: postgres.js prepared statement", calls, () => prepared(FLOOR_SQL.unreadCount, [hot.id])));
    out.push(await time("unread-count: tRPC caller → procedure → Drizzle", calls, () => caller.notifications.unreadCount()));
    out.push(
      await time("unread-count: whole floor request (inject)", calls, () =>
        inject(floor.app, "/api/notifications/unread-count", hot.token),
      ),
    );
    out.push(
      await time("unread-count: whole product REST request (inject)", calls, () =>
        inject(app, "/api/notifications/unread-count", hot.token),
      ),
    );
    out.push(
      await time("unread-count: whole product tRPC request (inject)", calls, () =>
        inject(app, "/trpc/notifications.unreadCount", hot.token),
      ),
    );
    // list.
    out.push(
      await time("list: postgres.js, the floor's one prepared statement", calls, () =>
        prepared(floorListQuery({ category: false, search: false }), [hot.id, 30, 0]),
      ),
    );
    out.push(await time("list: tRPC caller → procedure → Drizzle", calls, () => caller.notifications.list({ page: 1, limit: 30 })));
    out.push(
      await time("list: whole floor request (inject)", calls, () => inject(floor.app, "/api/notifications?page=1&limit=30", hot.token)),
    );
    out.push(
      await time("list: whole product REST request (inject)", calls, () => inject(app, "/api/notifications?page=1&limit=30", hot.token)),
    );
    const input = encodeURIComponent(JSON.stringify({ json: { page: 1, limit: 30 } }));
    out.push(
      await time("list: whole product tRPC request (inject)", calls, () =>
        inject(app, `/trpc/notifications.list?input=${input}`, hot.token),
      ),
    );
  } finally {
    await app.close();
    await floor.close();
    await handle.close();
    await sql.end({ timeout: 5 });
  }
  return out;
}

export function layersTable(rows: LayerTiming[]): string {
  const lines = ["| layer (one call at a time, in-process) | wall ms/call | CPU ms/call |", "|---|---:|---:|"];
  for (const r of rows) lines.push(`| ${r.layer} | ${r.wallMs.toFixed(3)} | ${r.cpuMs.toFixed(3)} |`);
  return lines.join("\n");
}
