// Two real server processes on one PostgreSQL database, as behind a load balancer (docs/scaling.md): a
// change made through either instance reaches the streams of both within a second, the sign-in limit counts
// across both, and killing one leaves the other serving.
import { randomBytes } from "node:crypto";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";
import { OpenFeature as WebOpenFeature } from "@openfeature/web-sdk";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/net.js";
import { FLAG } from "../helpers/ofrep.js";
import { type ProcessDatabase, processDatabase, type ServerProcess, startServerProcess } from "../helpers/server-process.js";
import { nextCount, openSse, type SseStream } from "../helpers/sse.js";
import { waitFor } from "../helpers/wait.js";

// The web provider follows event streams with the browser's EventSource; Node has none of its own.
(globalThis as { EventSource?: unknown }).EventSource ??= EventSource;

const PASSWORD = "a-long-admin-password";
const ADMIN = `ops-${randomBytes(4).toString("hex")}@example.com`;

async function call(server: ServerProcess, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      origin: server.url,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

describe("two instances on one database", () => {
  let database: ProcessDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  /** B's metrics (METRICS_PORT), where the test sees the OFREP streams open on it. */
  let bMetrics: string;
  const streams: SseStream[] = [];
  beforeAll(async () => {
    database = await processDatabase();
    const env = { ...database.env, ADMIN_EMAIL: ADMIN, ADMIN_PASSWORD: PASSWORD };
    // One after the other: the first makes the admin, the second finds it.
    a = await startServerProcess(env);
    bMetrics = `http://127.0.0.1:${await freePort()}`;
    b = await startServerProcess({ ...env, METRICS_PORT: new URL(bMetrics).port });
  }, 120_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await database?.close();
  });

  const signIn = async (server: ServerProcess, email: string, password = PASSWORD) =>
    call(server, "POST", "/api/auth/sign-in/email", { email, password });

  it("a notification created through A reaches a stream on B; read-all through B reaches a stream on A", async () => {
    const adminToken = (await signIn(a, ADMIN)).body!.token as string;
    const email = `reader-${randomBytes(4).toString("hex")}@example.com`;
    const signUp = await call(b, "POST", "/api/auth/sign-up/email", { name: "Reader", email, password: PASSWORD });
    const { token, user } = signUp.body as { token: string; user: { id: string } };
    const onA = await openSse(`${a.url}/api/notifications/stream`, { authorization: `Bearer ${token}` });
    const onB = await openSse(`${b.url}/api/notifications/stream`, { authorization: `Bearer ${token}` });
    streams.push(onA, onB);
    expect([await nextCount(onA), await nextCount(onB)]).toEqual([0, 0]);

    const created = await call(
      a,
      "POST",
      "/api/notifications/test/in-app",
      { type: "message.received", title: "Hi", targetUserId: user.id },
      adminToken,
    );
    expect(created.status).toBe(200);
    expect(await nextCount(onB, 1_000)).toBe(1);
    expect(await nextCount(onA, 1_000)).toBe(1);

    expect((await call(b, "PATCH", "/api/notifications/read-all", undefined, token)).status).toBe(200);
    expect(await nextCount(onA, 1_000)).toBe(0);
    expect(await nextCount(onB, 1_000)).toBe(0);
  });

  it("an OpenFeature web provider on B sees a cohort activated through A, through its event stream", async () => {
    const adminToken = (await signIn(a, ADMIN)).body!.token as string;
    const proId = `pro-${randomBytes(4).toString("hex")}`;
    const key = await call(a, "POST", "/api/admin/api-keys", { name: "messaging on B", scopes: ["flags:read"] }, adminToken);
    expect(key.status).toBe(201);
    const secret = (key.body!.data as { secret: string }).secret;
    const cohort = await call(a, "POST", "/api/admin/restriction/cohorts", { cohortNumber: 4242, proIds: [proId] }, adminToken);
    const cohortId = (cohort.body!.data as { id: string }).id;
    const gates = { responseRate: 0.9, comparisonsDone: 60, legalSignoff: true };
    expect((await call(a, "POST", `/api/admin/restriction/cohorts/${cohortId}/check-gates`, gates, adminToken)).status).toBe(201);

    await WebOpenFeature.setContext({ targetingKey: proId });
    await WebOpenFeature.setProviderAndWait(
      new OFREPWebProvider({ baseUrl: b.url, headers: [["x-api-key", secret]], cacheMode: "disabled", pollInterval: 0 }),
    );
    const client = WebOpenFeature.getClient();
    expect(client.getBooleanValue(FLAG, true)).toBe(false);
    // The provider opens its stream after the first evaluation; B counts it in its metrics.
    await waitFor(
      async () => (await (await fetch(`${bMetrics}/metrics`)).text()).match(/^ofrep_streams_open (\d+)/m)?.[1],
      (open) => Number(open) >= 1,
      { withinMs: 5000, what: "the provider's stream open on B" },
    );
    expect((await call(a, "POST", `/api/admin/restriction/cohorts/${cohortId}/activate`, undefined, adminToken)).status).toBe(200);
    await waitFor(
      async () => client.getBooleanValue(FLAG, false),
      (value) => value,
      { withinMs: 5000, what: "B's provider sees the activation" },
    );
    await WebOpenFeature.close();
  });

  it("refuses the 11th sign-in attempt in a minute whichever instance receives it", async () => {
    const email = `limited-${randomBytes(4).toString("hex")}@example.com`;
    await call(a, "POST", "/api/auth/sign-up/email", { name: "Limited", email, password: PASSWORD });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await signIn(i % 2 === 0 ? a : b, email, "wrong-password")).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it("keeps serving on B with no error once A is killed", async () => {
    await a.kill();
    expect((await fetch(`${b.url}/health/ready`)).status).toBe(200);
    const token = (await signIn(b, ADMIN)).body!.token as string;
    for (let i = 0; i < 5; i++) expect((await call(b, "GET", "/api/admin/restriction/cohorts", undefined, token)).status).toBe(200);
  });
});
