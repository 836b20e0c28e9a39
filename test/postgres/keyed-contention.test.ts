// Keyed writes under contention (issue Y, finding 3): more keyed test pushes at once than the pool has
// connections, each one's push held by the push service until the test lets go. Held inside the keyed
// transaction, each request kept a connection while its rate limit waited for a second one: every request
// and an unrelated read answered 503 at the deadline. Now no connection is held while a push is out, so all
// of them reach the push service at once, and the unrelated read answers while they wait.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { createTestApp, TEST_ORIGIN, type TestApp, type TestUser } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { type HoldingPushService, startHoldingPushService, subscribeAt } from "../helpers/push.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

/** The pool of test/helpers/db.ts has 10 connections: four requests for each. */
const REQUESTS = 40;
const DEADLINE_SECONDS = 3;
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

let t: TestApp;
let holding: HoldingPushService;
let admin: TestUser;

beforeAll(async () => {
  holding = await startHoldingPushService();
  t = await createTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: 60_000 },
    limits: { testPush: { max: 10_000, timeWindowMs: 60_000 } },
    dbQueryTimeoutSeconds: DEADLINE_SECONDS,
  });
  admin = await t.signUp({ admin: true });
});
afterAll(async () => {
  holding.release();
  await t?.app.close();
  await t?.db.close();
  await holding?.close();
});

const testPush = (key: string, target: TestUser) =>
  t.app.inject({
    method: "POST",
    url: "/api/notifications/test/push",
    headers: { ...admin.headers, "idempotency-key": key, "content-type": "application/json", origin: TEST_ORIGIN },
    payload: { type: "system.contention", title: "Contention", targetUserId: target.id },
  });

describe("keyed test pushes, more at once than the pool has connections (PostgreSQL)", () => {
  it("all reach the push service at once, an unrelated read answers meanwhile, and every one answers 200", async () => {
    const targets: TestUser[] = [];
    for (let i = 0; i < REQUESTS; i++) targets.push(await t.signUp());
    // One endpoint each: the push service holds the first push to every endpoint.
    for (const target of targets) await subscribeAt(t, target, holding.endpoint());
    const bystander = await t.signUp();

    const answers = Promise.all(targets.map((target, i) => testPush(`contention-${i}`, target)));
    const first = await Promise.race([holding.arrived(REQUESTS).then(() => "every push is out"), answers.then(() => "answered")]);
    expect(first).toBe("every push is out");

    // Every keyed request is waiting on the network; none holds a pool connection.
    const read = await t.app.inject({ method: "GET", url: "/api/notifications/unread-count", headers: bystander.headers });
    expect(read.statusCode, read.body).toBe(200);

    holding.release();
    const done = await answers;
    expect(done.map((r) => r.statusCode)).toEqual(Array(REQUESTS).fill(200));
    for (const r of done) expect(r.json().data).toMatchObject({ sent: 1, failed: 0 });
    expect(holding.requests).toHaveLength(REQUESTS);
  });
});
