// `npm run bench -- --only=write-ceiling` (issue V): single-user commits that change an unread count, at
// saturation, with and without announcements, side by side on one fresh database. Each request is
// PATCH /api/notifications/:id/read of an UNREAD notification: request i goes to user i mod 1,000 and that
// user's next unread notification (per-user cursors shared by every run, so nothing is marked twice), so
// every request commits one row and lowers its user's count by one.
//
// What the database does with an announcement is switched by replacing the SQL function `announce` that
// every trigger calls (migration 0018), from here, with CREATE OR REPLACE FUNCTION; the migration's own
// definition (read back with pg_get_functiondef before anything) is restored at the end:
//   - none:    `announce` does nothing: the floor server (bench/floor.ts, hand-written SQL, no announcement
//              at all: the physical limit of these fsync'd single-row commits here), before and after the
//              product's runs, and the product with nothing to announce (its own ceiling);
//   - notify:  a pg_notify per changed user inside the writer's transaction, as before the outbox (the
//              notify lock held through the commit's flush);
//   - outbox:  the migration's: one row in change_outbox, announced in batches by the relay of one of the
//              product instances (db/outbox-relay.ts).
// The product runs as two instances (two processes, each with its pool, LISTEN connection and relay
// candidate), the load split across them (two autocannon runs at once, half the connections each), with
// 1,000 live unread-count streams open, one per user, 500 on each instance (bench/stream-clients.ts, a
// process of its own, opened again for every product run).
//
// Delivery (notify and outbox): after the run settles, each stream's last count must equal its user's count
// in the database, and every user whose count changed must have had an event. Latency: each answered
// request's change is ranked among its user's changes of the run by read_at (the commit order: one user's
// requests are ~1,000 apart), so its count after the commit is known exactly; its latency is from the HTTP
// answer (autocannon's onResponse) to the first event on that user's stream carrying that count or lower.
// A LISTEN of the bench's own counts the NOTIFYs (and the ids each carried) on unread_count; the outbox's
// backlog is sampled during the outbox run. Last, with the outbox on, a cohort of 500 pros is activated
// through the product's procedure (in this process, as bench/ofrep-streams.ts does): the bench's LISTEN
// must hear one NOTIFY on restriction_flags for it, not 500. Very last, one UPDATE marks one notification of
// every user at once (as raw SQL or a seed writes: one outbox row naming 1,000 users): every stream must end
// on the database's count.
import postgres from "postgres";
import { announcedItems } from "../server/live/change-feed.js";
import { FLAGS_CHANNEL } from "../server/ofrep/changes.js";
import type { BenchDatabase } from "./database.js";
import { type RequestPlan, runLoad } from "./load.js";
import { type RunningServer, startServer } from "./servers.js";
import type { ClientStream } from "./stream-clients.js";
import { startClients } from "./streams.js";
import { activateCohort, compare } from "./write-ceiling-checks.js";
import {
  ANNOUNCE_SQL,
  type AnnounceMode,
  type CeilingRun,
  type CohortCheck,
  type Delivery,
  now,
  OPEN_CONCURRENCY,
  OPEN_TIMEOUT_MS,
  OUTBOX_DRAIN_TIMEOUT_MS,
  OUTBOX_SAMPLE_MS,
  outboxRows,
  SETTLE_MS,
  seed,
  sleep,
  totalOf,
  USER_PREFIX,
  unreadCounts,
  WHAT,
  WIDE_WAIT_MS,
  type WideCheck,
  type WriteCeilingResult,
  type WriteCeilingShape,
} from "./write-ceiling-setup.js";

export async function measureWriteCeiling(
  db: BenchDatabase,
  productEnv: Record<string, string>,
  shape: WriteCeilingShape,
  log: (message: string) => void,
): Promise<WriteCeilingResult> {
  const sql = db.sql;
  const [fn] = await sql<{ def: string }[]>`select pg_get_functiondef('announce(text, text[])'::regprocedure) as def`;
  const migrationAnnounce = fn!.def;
  const setAnnounce = async (mode: AnnounceMode) => {
    await sql.unsafe(mode === "outbox" ? migrationAnnounce : ANNOUNCE_SQL[mode]);
    log(`write-ceiling: announce() now: ${WHAT[mode]}`);
  };

  // The seed announces nothing: its one INSERT for every user is set-up, not the workload measured.
  await setAnnounce("none");
  log(`write-ceiling: seeding ${shape.users} users, one session and ${shape.notificationsPerUser} unread notifications each`);
  const seeded = await seed(db, shape.users, shape.notificationsPerUser, shape.cohortSize);
  const { userIds, tokens, unread } = seeded;

  // Request i: user i mod users, that user's next unread notification; cursors shared by every run.
  const cursor = new Int32Array(userIds.length);
  let sequence = 0;
  let exhausted = 0;
  const nextMark = () => {
    const u = sequence++ % userIds.length;
    const list = unread[u]!;
    const c = cursor[u]!;
    cursor[u] = c + 1;
    if (c >= list.length) exhausted++;
    return { u, id: list[Math.min(c, list.length - 1)]! };
  };
  type Answer = { u: number; id: string; at: number };
  let answers: Answer[] = [];
  const plan: RequestPlan = {
    method: "PATCH",
    path: "/api/notifications/00000000-0000-0000-0000-000000000000/read",
    headers: {},
    next: (_i, context) => {
      const mark = nextMark();
      context.mark = mark;
      return { path: `/api/notifications/${mark.id}/read`, headers: { authorization: `Bearer ${tokens[mark.u]}` } };
    },
    onResponse: (status, context) => {
      const mark = context.mark as { u: number; id: string } | undefined;
      if (status >= 200 && status < 300 && mark) answers.push({ ...mark, at: now() });
    },
  };
  /** One request through `server` outside the load: it must succeed (the path and the session work there). */
  const check = async (server: RunningServer) => {
    const mark = nextMark();
    const response = await fetch(`${server.origin}/api/notifications/${mark.id}/read`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${tokens[mark.u]}` },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (response.status !== 200)
      throw new Error(`write-ceiling: ${server.name} answered the mark-read check ${response.status}: ${text.slice(0, 300)}`);
  };

  const listener = postgres(db.url, { max: 1, onnotice: () => {} });
  const heard: { at: number; items: number }[] = [];
  const flags: { at: number; payload: string }[] = [];
  await listener.listen("unread_count", (payload) => void heard.push({ at: now(), items: announcedItems(payload).length }));
  await listener.listen(FLAGS_CHANNEL, (payload) => void flags.push({ at: now(), payload }));

  const servers: RunningServer[] = [];
  let clients: ReturnType<typeof startClients> | undefined;
  const runs: CeilingRun[] = [];
  const deliveries: Delivery[] = [];
  let cohort: CohortCheck | null = null;
  let wide: WideCheck | null = null;
  try {
    const [floor, ...products] = await Promise.all([
      startServer("floor", "./floor.ts", shape.floorEnv, { cpuProfDir: shape.cpuProfDir }),
      startServer("product-1", "./product-server.ts", productEnv, { cpuProfDir: shape.cpuProfDir }),
      startServer("product-2", "./product-server.ts", productEnv, { cpuProfDir: shape.cpuProfDir }),
    ]);
    servers.push(floor!, ...products);

    /** One run: the load on `targets` at once (the connections split between them); the counts lowered. */
    const run = async (server: CeilingRun["server"], announce: AnnounceMode, targets: RunningServer[]): Promise<CeilingRun> => {
      const before = totalOf(await unreadCounts(sql));
      for (const target of targets) await check(target);
      const connections = Math.max(1, Math.floor(shape.connections / targets.length));
      const results = await Promise.all(
        targets.map((t) => runLoad(t.origin, plan, { connections, duration: shape.duration, warmup: shape.warmup, pid: t.pid })),
      );
      const after = totalOf(await unreadCounts(sql));
      const requests = results.reduce((n, r) => n + r.requests, 0);
      // The instances' CPU a request, weighted by the requests each answered.
      const weighted = (field: "cpuMsPerRequest" | "kernelMsPerRequest") =>
        results.every((r) => r[field] !== null) ? results.reduce((n, r) => n + r[field]! * r.requests, 0) / Math.max(1, requests) : null;
      const cpu = weighted("cpuMsPerRequest");
      const result: CeilingRun = {
        target: `${server === "floor" ? "floor" : `product × ${targets.length}`}, ${WHAT[announce]}`,
        server,
        announce,
        instances: targets.length,
        rps: results.reduce((n, r) => n + r.rps, 0),
        rpsPerInstance: results.map((r) => r.rps),
        // Two histograms cannot be merged from their percentiles: the answers' p50 weighted by requests, the worse p99.
        p50: results.reduce((n, r) => n + r.p50 * r.requests, 0) / Math.max(1, requests),
        p99: Math.max(...results.map((r) => r.p99)),
        errors: results.reduce((n, r) => n + r.errors, 0),
        requests,
        cpuMsPerRequest: cpu,
        kernelMsPerRequest: weighted("kernelMsPerRequest"),
        // The runs overlap in this one process: each one's load-generator CPU is the whole process's meanwhile.
        clientCpuMsPerRequest: Math.max(...results.map((r) => r.clientCpuMsPerRequest * r.requests)) / Math.max(1, requests),
        machineBusy: results[0]!.machineBusy,
        changes: before - after,
      };
      log(
        `write-ceiling: ${result.target.padEnd(48)} ${result.rps.toFixed(0).padStart(6)} req/s (${result.rpsPerInstance.map((r) => r.toFixed(0)).join(" + ")})  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  errors ${result.errors}  ${result.changes} counts lowered  cpu ${cpu?.toFixed(2) ?? "?"} ms/req`,
      );
      runs.push(result);
      return result;
    };

    const streams: Extract<ClientStream, { kind: "unread-count" }>[] = userIds.map((follows, i) => ({
      kind: "unread-count",
      follows,
      token: tokens[i]!,
    }));
    /** A new clients' process with every user's stream open, spread evenly over the instances. */
    const openStreams = async () => {
      const c = startClients();
      clients = c;
      const per = Math.ceil(streams.length / products.length);
      for (const [k, product] of products.entries()) {
        const part = streams.slice(k * per, (k + 1) * per);
        c.send({ type: "open", origin: product.origin, streams: part, concurrency: OPEN_CONCURRENCY, timeoutMs: OPEN_TIMEOUT_MS });
        const opened = await c.answer("opened", OPEN_TIMEOUT_MS + 10_000);
        const expected = Math.min(streams.length, (k + 1) * per);
        if (!opened || opened.ok !== expected) {
          throw new Error(`opened ${opened?.ok ?? 0} of ${expected} streams: ${opened?.failures.join("; ") ?? "no answer"}`);
        }
      }
      return c;
    };

    const measureProduct = async (announce: AnnounceMode) => {
      await setAnnounce(announce);
      const opening = now();
      const c = await openStreams();
      log(
        `write-ceiling: ${streams.length} unread-count streams open (${products.length} instances) in ${((now() - opening) / 1000).toFixed(1)} s`,
      );
      await sleep(500);
      const before = await unreadCounts(sql);
      const [{ start } = { start: new Date(0) }] = await sql<{ start: Date }[]>`select now() as start`;
      const heardBefore = heard.length;
      answers = [];
      const samples: { rows: number; lag: number }[] = [];
      let sampling = announce === "outbox";
      const sampler = (async () => {
        while (sampling) {
          samples.push(await outboxRows(sql));
          await sleep(OUTBOX_SAMPLE_MS);
        }
      })();
      await run("product", announce, products);
      sampling = false;
      await sampler;
      const loadEnded = now();
      // Settle: the relay empties the outbox (when on), then the last reads of the counts reach the streams.
      let atEnd = await outboxRows(sql);
      while (announce === "outbox" && atEnd.rows > 0 && now() - loadEnded < OUTBOX_DRAIN_TIMEOUT_MS) {
        await sleep(50);
        atEnd = await outboxRows(sql);
      }
      if (atEnd.rows > 0) {
        log(
          `write-ceiling: ${atEnd.rows} outbox rows still waiting ${OUTBOX_DRAIN_TIMEOUT_MS / 1000} s after the load, the oldest ${atEnd.lag.toFixed(1)} s old: the relay is not draining`,
        );
      }
      await sleep(SETTLE_MS);
      const after = await unreadCounts(sql);
      c.send({ type: "report" });
      const report = await c.answer("report", 30_000);
      if (!report) throw new Error("the stream clients did not report");
      const settleMs = now() - loadEnded;
      // The commit order of each user's changes in this run (read_at is its transaction's start).
      const ranks = await sql<{ id: string; rank: number }[]>`
        select id, row_number() over (partition by user_id order by read_at, id)::int as rank
        from notifications where user_id like ${`${USER_PREFIX}%`} and read_at >= ${start}`;
      const rankOf = new Map(ranks.map((r) => [r.id, r.rank]));
      const heardNow = heard.slice(heardBefore);
      const delivery: Delivery = {
        announce,
        streams: report.streams.length,
        changes: totalOf(before) - totalOf(after),
        answered: answers.length,
        notifies: heardNow.length,
        notifiedItems: heardNow.reduce((n, h) => n + h.items, 0),
        maxItemsPerNotify: Math.max(0, ...heardNow.map((h) => h.items)),
        outbox:
          announce === "outbox"
            ? {
                samples: samples.length,
                maxRows: Math.max(0, ...samples.map((s) => s.rows)),
                maxLagSeconds: Math.max(0, ...samples.map((s) => s.lag)),
                rowsAtEnd: atEnd.rows,
              }
            : null,
        settleMs,
        endedEarly: report.ended,
        ...compare(report.streams, before, after, answers, rankOf, userIds),
      };
      deliveries.push(delivery);
      log(
        `write-ceiling: ${WHAT[announce]}: ${delivery.changes} changes, ${delivery.events} events, ${delivery.usersChangedWithoutEvent} changed users without an event, ${delivery.wrongFinal} wrong final counts; answer → event p50 ${delivery.latency.p50.toFixed(0)} / p99 ${delivery.latency.p99.toFixed(0)} / max ${delivery.latency.max.toFixed(0)} ms (${delivery.unmatched} unmatched); ${delivery.notifies} NOTIFYs carrying ${delivery.notifiedItems} ids${delivery.outbox ? `; outbox max ${delivery.outbox.maxRows} rows, max lag ${delivery.outbox.maxLagSeconds.toFixed(2)} s` : ""}`,
      );
      return c;
    };

    /** One UPDATE marking each user's next unread notification: every stream must end on the database's count. */
    const wideStatement = async (c: Awaited<ReturnType<typeof openStreams>>): Promise<WideCheck> => {
      const ids = userIds.map(() => nextMark().id);
      const heardBefore = heard.length;
      await sql`update notifications set read_at = now() where id = any(${ids}::uuid[]) and read_at is null`;
      await sleep(WIDE_WAIT_MS);
      const after = await unreadCounts(sql);
      c.send({ type: "report" });
      const report = await c.answer("report", 30_000);
      if (!report) throw new Error("the stream clients did not report");
      const lastOf = new Map(
        report.streams.map((st) => [st.follows, st.events.length ? Number(st.events[st.events.length - 1]![0]) : null]),
      );
      const heardNow = heard.slice(heardBefore);
      const check: WideCheck = {
        users: ids.length,
        streamsRight: userIds.filter((u) => lastOf.get(u) === after.get(u)).length,
        outboxRowsLeft: (await outboxRows(sql)).rows,
        notifies: heardNow.length,
        notifiedItems: heardNow.reduce((n, h) => n + h.items, 0),
      };
      log(
        `write-ceiling: one statement for ${check.users} users: ${check.streamsRight} streams show the database's count ${WIDE_WAIT_MS / 1000} s later; ${check.notifies} NOTIFYs carrying ${check.notifiedItems} ids; ${check.outboxRowsLeft} outbox rows left`,
      );
      return check;
    };

    // The floor first, with nothing announced.
    await setAnnounce("none");
    await run("floor", "none", [floor!]);
    // The product: its own ceiling, then before V, then V.
    for (const mode of ["none", "notify", "outbox"] as const) {
      const c = await measureProduct(mode);
      if (mode === "outbox") {
        cohort = await activateCohort(db.url, seeded.cohortId, shape.cohortSize, flags, log);
        // Last: should the relay fail on it, nothing measured after would be announced.
        wide = await wideStatement(c);
      }
      await c.stop();
      clients = undefined;
    }
    // The floor again: how much the machine moved meanwhile.
    await setAnnounce("none");
    await run("floor", "none", [floor!]);
    const { floorEnv: _, cpuProfDir: __, ...rest } = shape;
    return { shape: rest, runs, deliveries, cohort, wide, exhausted };
  } finally {
    await sql.unsafe(migrationAnnounce).catch((err: Error) => log(`write-ceiling: could not restore announce(): ${err.message}`));
    await clients?.stop();
    await Promise.allSettled(servers.map((s) => s.stop()));
    await listener.end({ timeout: 5 });
  }
}
