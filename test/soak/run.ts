// npm run soak: SOAK_SECONDS (default 60) of mixed traffic from several users and an admin against the real
// server (openService, as server/main.ts runs it) on a fresh PostgreSQL database, over HTTP on 127.0.0.1.
// Prints totals per operation, the errors (an answer other than the one the operation expects, or no
// answer), and memory at start and end; exits 1 on any error. Not part of npm test.
//
//   SOAK_SECONDS       how long the traffic runs (default 60, at most 3600)
//   SOAK_DATABASE_URL  the PostgreSQL server to create the soak database on
//                      (default postgres://postgres@127.0.0.1:5432/postgres); the database is dropped at the end
//   SOAK_USERS         how many signed-in users send traffic besides the admin (default 6)
//   SOAK_MAX_HEAP_GROWTH_MB  live heap growth allowed from the first 10 s sample to the end (default 32);
//                      more fails the run: memory that keeps growing under steady traffic is a leak
import { randomBytes, randomUUID } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import postgres from "postgres";
import webpush from "web-push";
import { pros } from "../../db/schema/index.js";
import { loadConfig } from "../../server/config.js";
import { openService } from "../../server/service.js";
import { freePort } from "../helpers/net.js";
import { makeSubscriber, startPushService } from "../../tools/local-push-service.js";

// ---------------------------------------------------------------------------------------------- settings

function intSetting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    console.error(`${name}: must be an integer from ${min} to ${max}, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

const SECONDS = intSetting("SOAK_SECONDS", 60, 1, 3600);
// The server admits 10 sign-ups a minute from one address: the admin and at most 9 users.
const USERS = intSetting("SOAK_USERS", 6, 1, 9);
const MAX_HEAP_GROWTH_MB = intSetting("SOAK_MAX_HEAP_GROWTH_MB", 32, 1, 4096);
const SERVER_URL = process.env.SOAK_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
/** Every loop stops at the deadline or after this many operations, whichever comes first. */
const MAX_OPS_PER_ACTOR = 1_000_000;
const MAX_COHORTS = 40;
const PRO_COUNT = 300;
/** The admin test push is rate limited (30 a minute per caller): one every 2.5 s stays under it. */
const TEST_PUSH_EVERY_MS = 2_500;
/** Sign-in is rate limited (10 a minute per address and account): one every 10 s per user. */
const SIGN_IN_EVERY_MS = 10_000;

// A garbage collection before each memory reading, so that the numbers compare live data, not garbage.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

// ------------------------------------------------------------------------------------------------ stats

type Stat = { count: number; errors: number; totalMs: number; maxMs: number; buckets: number[] };
const stats = new Map<string, Stat>();
const errorSamples: string[] = [];
/** Latency buckets in ms: upper bounds, the last one open. */
const BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, Infinity];

function record(op: string, ms: number, error: string | null) {
  let stat = stats.get(op);
  if (!stat) stats.set(op, (stat = { count: 0, errors: 0, totalMs: 0, maxMs: 0, buckets: BUCKETS.map(() => 0) }));
  stat.count++;
  stat.totalMs += ms;
  stat.maxMs = Math.max(stat.maxMs, ms);
  stat.buckets[BUCKETS.findIndex((b) => ms <= b)]!++;
  if (error) {
    stat.errors++;
    if (errorSamples.length < 20) errorSamples.push(`${op}: ${error}`);
  }
}

const p95 = (s: Stat) => {
  let seen = 0;
  for (let i = 0; i < BUCKETS.length; i++) {
    seen += s.buckets[i]!;
    if (seen >= s.count * 0.95) return BUCKETS[i] === Infinity ? `>${BUCKETS[i - 1]}` : `≤${BUCKETS[i]}`;
  }
  return "-";
};

const totals = () => [...stats.values()].reduce((t, s) => ({ count: t.count + s.count, errors: t.errors + s.errors }), { count: 0, errors: 0 });

type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
function memory(): Memory {
  gc();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external };
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const showMemory = (m: Memory) => `rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)} of ${mb(m.heapTotal)}, external ${mb(m.external)}`;

// ------------------------------------------------------------------------------------------------- HTTP

type Answer = { status: number; body: unknown };
type Call = {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  token?: string;
  /** The one status this call must answer with. */
  expect: number;
  /** Optional further check of the body; returns an error text or null. */
  check?: (body: unknown) => string | null;
};

let base = "";

async function send(op: string, call: Call): Promise<Answer | null> {
  const started = performance.now();
  let answer: Answer | null = null;
  let error: string | null = null;
  try {
    const res = await fetch(`${base}${call.path}`, {
      method: call.method,
      headers: {
        ...(call.body === undefined ? {} : { "content-type": "application/json" }),
        ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
        origin: base,
      },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: kept as text, and any check below sees it.
    }
    answer = { status: res.status, body };
    if (res.status !== call.expect) error = `${call.method} ${call.path}: expected ${call.expect}, got ${res.status} ${text.slice(0, 300)}`;
    else if (call.check) error = call.check(body);
  } catch (err) {
    error = `${call.method} ${call.path}: no answer: ${String((err as Error).cause ?? err)}`;
  }
  record(op, performance.now() - started, error);
  return error ? null : answer;
}

/** The `data` of a success envelope. */
const data = <T>(answer: Answer | null) => (answer?.body as { data: T } | undefined)?.data;
const envelope = (body: unknown) =>
  (body as { success?: unknown })?.success === true ? null : `not a success envelope: ${JSON.stringify(body).slice(0, 200)}`;
const errorCode = (code: string) => (body: unknown) =>
  (body as { error?: { code?: string } })?.error?.code === code ? null : `expected error ${code}: ${JSON.stringify(body).slice(0, 200)}`;

// --------------------------------------------------------------------------------------------- the actors

/** A small deterministic PRNG (mulberry32), so a run's mix can be reproduced. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

const CATEGORIES = ["messages", "leads", "reviews", "billing", "account", "system"] as const;
const EVENT_TYPES = ["message.received", "lead.created", "review.posted", "invoice.paid", "security.login", "weekly_digest"];
const proIds = Array.from({ length: PRO_COUNT }, (_, i) => `soak-pro-${String(i).padStart(4, "0")}`);

type Actor = { email: string; password: string; token: string; id: string };
let stopping = false;

/** Weighted choice: each entry is [weight, value]. */
function weighted<T>(entries: readonly (readonly [number, T])[]) {
  const total = entries.reduce((sum, [w]) => sum + w, 0);
  return (roll: number) => {
    let at = roll * total;
    for (const [w, value] of entries) if ((at -= w) < 0) return value;
    return entries[entries.length - 1]![1];
  };
}

const userMix = weighted([
  [20, "list"],
  [10, "unread"],
  [6, "trpc-unread"],
  [10, "mark-read"],
  [5, "read-all"],
  [6, "delete-one"],
  [4, "bulk-delete"],
  [6, "subscribe"],
  [4, "list-subscriptions"],
  [3, "unsubscribe"],
  [4, "forbidden"],
  [3, "not-found"],
  [3, "bad-body"],
  [2, "anonymous"],
  [3, "sign-in"],
  [4, "health"],
] as const);

async function userLoop(user: Actor, seed: number, deadline: number, endpoints: string[]) {
  const r = rng(seed);
  let known: string[] = [];
  let lastSignIn = 0;
  for (let i = 0; i < MAX_OPS_PER_ACTOR && Date.now() < deadline && !stopping; i++) {
    const token = user.token;
    let op = userMix(r.next());
    // Operations on a notification need one from the inbox: read it first.
    if (!known.length && (op === "mark-read" || op === "delete-one" || op === "bulk-delete")) op = "list";
    if (op === "sign-in" && Date.now() - lastSignIn < SIGN_IN_EVERY_MS) op = "health";
    switch (op) {
      case "list": {
        const query = new URLSearchParams({ page: String(1 + r.int(2)), limit: String(5 + r.int(30)) });
        if (r.next() < 0.3) query.set("category", r.pick(CATEGORIES));
        if (r.next() < 0.2) query.set("search", r.pick(["Soak", "%", "_", "lead", "nothing-matches"]));
        const list = data<{ notifications: { id: string }[] }>(
          await send("user: list inbox", { method: "GET", path: `/api/notifications?${query}`, token, expect: 200, check: envelope }),
        );
        if (list) known = list.notifications.map((n) => n.id);
        break;
      }
      case "unread":
        await send("user: unread count", { method: "GET", path: "/api/notifications/unread-count", token, expect: 200, check: envelope });
        break;
      case "trpc-unread":
        await send("user: tRPC unreadCount", { method: "GET", path: "/trpc/notifications.unreadCount", token, expect: 200 });
        break;
      case "mark-read":
        // One loop per user and nobody else deletes its notifications: the id is still there.
        await send("user: mark read", { method: "PATCH", path: `/api/notifications/${r.pick(known)}/read`, token, expect: 200, check: envelope });
        break;
      case "read-all": {
        const category = r.next() < 0.5 ? `?category=${r.pick(CATEGORIES)}` : "";
        await send("user: read all", { method: "PATCH", path: `/api/notifications/read-all${category}`, token, expect: 200, check: envelope });
        break;
      }
      case "delete-one":
        await send("user: delete one", { method: "DELETE", path: `/api/notifications/${known.pop()}`, token, expect: 200, check: envelope });
        break;
      case "bulk-delete":
        await send("user: bulk delete", {
          method: "DELETE",
          path: "/api/notifications/bulk",
          body: { ids: known.splice(0, 3) },
          token,
          expect: 200,
          check: envelope,
        });
        break;
      case "subscribe": {
        const { p256dh, auth } = makeSubscriber();
        await send("user: subscribe push", {
          method: "POST",
          path: "/api/notifications/subscriptions",
          body: { endpoint: r.pick(endpoints), p256dh, auth },
          token,
          expect: 200,
          check: envelope,
        });
        break;
      }
      case "list-subscriptions":
        await send("user: list subscriptions", { method: "GET", path: "/api/notifications/subscriptions", token, expect: 200, check: envelope });
        break;
      case "unsubscribe":
        await send("user: unsubscribe push", {
          method: "DELETE",
          path: "/api/notifications/subscriptions",
          body: { endpoint: r.pick(endpoints) },
          token,
          expect: 200,
          check: envelope,
        });
        break;
      // Error paths are traffic too: each must answer its docs/api.md#errors status, or counts as an error.
      case "forbidden":
        await send("user: admin route (403)", { method: "GET", path: "/api/admin/restriction/cohorts", token, expect: 403, check: errorCode("FORBIDDEN") });
        break;
      case "not-found":
        await send("user: unknown id (404)", {
          method: "PATCH",
          path: `/api/notifications/${randomUUID()}/read`,
          token,
          expect: 404,
          check: errorCode("NOT_FOUND"),
        });
        break;
      case "bad-body":
        await send("user: bad body (400)", { method: "DELETE", path: "/api/notifications/bulk", body: { ids: [] }, token, expect: 400, check: errorCode("VALIDATION_ERROR") });
        break;
      case "anonymous":
        await send("anonymous (401)", { method: "GET", path: "/api/notifications/unread-count", expect: 401, check: errorCode("UNAUTHORIZED") });
        break;
      case "sign-in": {
        lastSignIn = Date.now();
        const answer = await send("user: sign in", {
          method: "POST",
          path: "/api/auth/sign-in/email",
          body: { email: user.email, password: user.password },
          expect: 200,
        });
        const fresh = (answer?.body as { token?: string } | undefined)?.token;
        if (fresh) user.token = fresh;
        break;
      }
      case "health":
        await send("health: ready", { method: "GET", path: "/health/ready", expect: 200 });
        break;
    }
  }
}

type CohortModel = { id: string; lastCheckPassed: boolean | null };

async function adminLoop(admin: Actor, users: Actor[], seed: number, deadline: number) {
  const r = rng(seed);
  const token = admin.token;
  const cohorts: CohortModel[] = [];
  let lastPush = 0;
  let nextCohortNumber = 1;
  const R = "/api/admin/restriction";
  for (let i = 0; i < MAX_OPS_PER_ACTOR && Date.now() < deadline && !stopping; i++) {
    const roll = r.int(100);
    const cohort = cohorts.length ? r.pick(cohorts) : null;
    if (roll < 8 && cohorts.length < MAX_COHORTS) {
      const size = 1 + r.int(60);
      const start = r.int(PRO_COUNT - size);
      const created = data<{ id: string }>(
        await send("admin: create cohort", {
          method: "POST",
          path: `${R}/cohorts`,
          body: { cohortNumber: nextCohortNumber++, proIds: proIds.slice(start, start + size) },
          token,
          expect: 201,
          check: envelope,
        }),
      );
      if (created) cohorts.push({ id: created.id, lastCheckPassed: null });
    } else if (roll < 18 && cohort) {
      const pass = r.next() < 0.7;
      const body = pass ? { responseRate: 0.8, comparisonsDone: 60, legalSignoff: true } : { responseRate: 0.3, comparisonsDone: 10 };
      const check = data<{ allGatesMet: boolean }>(
        await send("admin: check gates", { method: "POST", path: `${R}/cohorts/${cohort.id}/check-gates`, body, token, expect: 201, check: envelope }),
      );
      if (check) cohort.lastCheckPassed = check.allGatesMet;
    } else if (roll < 30 && cohort) {
      // The admin loop is the only writer of gate checks, so it knows what activation must answer.
      if (cohort.lastCheckPassed) {
        await send("admin: activate cohort", { method: "POST", path: `${R}/cohorts/${cohort.id}/activate`, token, expect: 200, check: envelope });
      } else {
        await send("admin: activate blocked (400)", {
          method: "POST",
          path: `${R}/cohorts/${cohort.id}/activate`,
          token,
          expect: 400,
          check: errorCode("VALIDATION_ERROR"),
        });
      }
    } else if (roll < 38 && cohort) {
      await send("admin: rollback cohort", {
        method: "POST",
        path: `${R}/cohorts/${cohort.id}/rollback`,
        body: r.next() < 0.5 ? { reason: "soak rollback" } : {},
        token,
        expect: 200,
        check: envelope,
      });
    } else if (roll < 44) {
      await send("admin: list cohorts", { method: "GET", path: `${R}/cohorts`, token, expect: 200, check: envelope });
    } else if (roll < 48) {
      await send("admin: tRPC listCohorts", { method: "GET", path: "/trpc/restriction.listCohorts", token, expect: 200 });
    } else if (roll < 54) {
      await send("admin: get pro", { method: "GET", path: `${R}/${r.pick(proIds)}`, token, expect: 200, check: envelope });
    } else if (roll < 58) {
      await send("admin: list active pros", { method: "GET", path: R, token, expect: 200, check: envelope });
    } else if (roll < 64) {
      const action = r.next() < 0.5 ? "activate" : "rollback";
      await send(`admin: pro ${action}`, { method: "POST", path: `${R}/${r.pick(proIds)}/${action}`, token, expect: 200, check: envelope });
    } else if (roll < 86) {
      const target = r.pick(users);
      const type = r.pick(EVENT_TYPES);
      await send("admin: in-app notification", {
        method: "POST",
        path: "/api/notifications/test/in-app",
        body: { type, title: `Soak ${type} ${i}`, body: r.next() < 0.5 ? "body text" : undefined, url: r.next() < 0.3 ? "https://app.example.test/x" : undefined, targetUserId: target.id },
        token,
        expect: 200,
        check: envelope,
      });
    } else if (roll < 90 && Date.now() - lastPush >= TEST_PUSH_EVERY_MS) {
      lastPush = Date.now();
      await send("admin: test push", {
        method: "POST",
        path: "/api/notifications/test/push",
        body: { type: "system.soak", title: "Soak push", targetUserId: r.pick(users).id },
        token,
        expect: 200,
        check: envelope,
      });
    } else if (roll < 94) {
      await send("admin: all subscriptions", { method: "GET", path: "/api/notifications/test/subscriptions", token, expect: 200, check: envelope });
    } else if (roll < 97) {
      await send("admin: unknown cohort (404)", {
        method: "POST",
        path: `${R}/cohorts/${randomUUID()}/activate`,
        token,
        expect: 404,
        check: errorCode("NOT_FOUND"),
      });
    } else {
      await send("admin: bad cohort (400)", {
        method: "POST",
        path: `${R}/cohorts`,
        body: { cohortNumber: -1, proIds: [] },
        token,
        expect: 400,
        check: errorCode("VALIDATION_ERROR"),
      });
    }
  }
}

// -------------------------------------------------------------------------------------------------- main

async function main(): Promise<number> {
  const admin = postgres(SERVER_URL, { max: 1, onnotice: () => {} });
  const dbName = `rn_soak_${randomBytes(6).toString("hex")}`;
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${dbName}`;
  const push = await startPushService();
  let service: Awaited<ReturnType<typeof openService>> | undefined;
  const onSignal = () => {
    console.log("\ninterrupted: stopping the traffic, then cleaning up");
    stopping = true;
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    await admin.unsafe(`create database ${dbName}`);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const vapid = webpush.generateVAPIDKeys();
    const adminEmail = "soak-admin@soak.test";
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

    const password = "correct-horse-battery-staple";
    const signUp = async (email: string): Promise<Actor> => {
      const answer = await send("setup: sign up", { method: "POST", path: "/api/auth/sign-up/email", body: { name: email.split("@")[0], email, password }, expect: 200 });
      const body = answer?.body as { token?: string; user?: { id: string } } | undefined;
      if (!body?.token || !body.user) throw new Error(`sign-up of ${email} failed: ${errorSamples.join("\n")}`);
      return { email, password, token: body.token, id: body.user.id };
    };
    const adminActor = await signUp(adminEmail);
    const users: Actor[] = [];
    for (let i = 0; i < USERS; i++) users.push(await signUp(`soak-user-${i}@soak.test`));
    // Each user's browsers: a few endpoints that accept, one the push service says is gone (410).
    const endpoints = users.map(() => [push.endpoint(201), push.endpoint(201), push.endpoint(410)]);

    console.log(`soak: ${SECONDS} s, ${USERS} users and 1 admin, server ${base}, database ${dbName} on ${dbUrl.host}`);
    const start = memory();
    console.log(`memory at start: ${showMemory(start)}`);

    const began = Date.now();
    const deadline = began + SECONDS * 1000;
    // Every 10 s: the totals so far and the live heap (after a collection), to see a trend, not one point.
    const samples: Memory[] = [];
    const progress = setInterval(() => {
      const { count, errors } = totals();
      const m = memory();
      samples.push(m);
      console.log(`  ${Math.round((Date.now() - began) / 1000)} s: ${count} requests, ${errors} errors, rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)}`);
    }, 10_000);
    try {
      await Promise.all([
        adminLoop(adminActor, users, 1, deadline),
        ...users.map((user, i) => userLoop(user, 100 + i, deadline, endpoints[i]!)),
      ]);
    } finally {
      clearInterval(progress);
    }
    const elapsed = (Date.now() - began) / 1000;
    const end = memory();

    const rows = [...stats.entries()].sort(([a], [b]) => a.localeCompare(b));
    const width = Math.max(...rows.map(([op]) => op.length));
    console.log(`\n${"operation".padEnd(width)}  ${"count".padStart(7)}  ${"errors".padStart(6)}  ${"avg ms".padStart(7)}  ${"p95 ms".padStart(7)}  ${"max ms".padStart(7)}`);
    for (const [op, s] of rows) {
      console.log(
        `${op.padEnd(width)}  ${String(s.count).padStart(7)}  ${String(s.errors).padStart(6)}  ${(s.totalMs / s.count).toFixed(1).padStart(7)}  ${p95(s).padStart(7)}  ${s.maxMs.toFixed(0).padStart(7)}`,
      );
    }
    const { count, errors } = totals();
    console.log(`\ntotal: ${count} requests in ${elapsed.toFixed(1)} s (${(count / elapsed).toFixed(0)}/s), errors: ${errors}`);
    console.log(`memory at start: ${showMemory(start)}`);
    console.log(`memory at end:   ${showMemory(end)}`);
    console.log(`change:          rss ${mb(end.rss - start.rss)}, heap used ${mb(end.heapUsed - start.heapUsed)}`);
    // Start-up and the first requests fill caches (compiled code, prepared statements): the trend is judged
    // from the first sample, taken under traffic, to the end.
    const warm = samples[0] ?? start;
    const growth = end.heapUsed - warm.heapUsed;
    const stable = growth <= MAX_HEAP_GROWTH_MB * 1024 * 1024;
    console.log(
      `live heap ${samples[0] ? "after 10 s" : "at start"} ${mb(warm.heapUsed)} → end ${mb(end.heapUsed)}: ` +
        `${stable ? "stable" : "GROWING"} (${mb(growth)}, allowed ${MAX_HEAP_GROWTH_MB} MB)`,
    );
    if (errorSamples.length) console.log(`\nfirst errors:\n  ${errorSamples.join("\n  ")}`);
    if (stopping) return 1;
    return errors === 0 && stable ? 0 : 1;
  } finally {
    await service?.app.close();
    await service?.handle.close();
    await push.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
