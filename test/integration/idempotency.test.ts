// Safe retries over HTTP (docs/api.md#safe-retries): an Idempotency-Key makes a REST write run once per
// caller and key; repeats are answered from the stored first answer. Runs on PGlite and PostgreSQL, where
// the parallel requests truly overlap.
import { randomBytes } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import webpush from "web-push";
import { idempotencyKeys, notifications, restrictionCohorts } from "../../db/schema/index.js";
import { type LocalPushService, makeSubscriber, startPushService } from "../../tools/local-push-service.js";
import { type TestApp, type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";

const COHORTS = "/api/admin/restriction/cohorts";
const INBOX = "/api/notifications";
const PASSING = { responseRate: 0.9, comparisonsDone: 80, legalSignoff: true } as const;
const PUSH_TIMEOUT_MS = 1500;
const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const newKey = () => `retry-${randomBytes(8).toString("hex")}`;

/** Sends one request as `user` (or anonymously), with the key when one is given. */
function requester(t: () => TestApp) {
  return (user: TestUser | null, method: Method, url: string, options: { key?: string; payload?: unknown } = {}) =>
    t().app.inject({
      method,
      url,
      headers: { ...user?.headers, ...(options.key === undefined ? {} : { "idempotency-key": options.key }) },
      ...(options.payload === undefined ? {} : { payload: options.payload as object }),
    });
}

const replayed = (res: LightMyRequestResponse) => res.headers["idempotent-replayed"];

function expectReplayOf(repeat: LightMyRequestResponse, first: LightMyRequestResponse) {
  expect(replayed(first)).toBeUndefined();
  expect(replayed(repeat)).toBe("true");
  expect(repeat.statusCode).toBe(first.statusCode);
  expect(repeat.headers["content-type"]).toMatch(/^application\/json/);
  expect(repeat.body).toBe(first.body);
}

describe("safe retries", () => {
  const t = useTestApp({
    push: { vapid, allowHttpEndpoints: true, allowPrivateEndpoints: true, timeoutMs: PUSH_TIMEOUT_MS },
  });
  const send = requester(t);
  let pushService: LocalPushService;
  beforeAll(async () => {
    pushService = await startPushService();
  });
  afterAll(async () => {
    await pushService?.close();
  });

  const inAppFor = (target: TestUser, title = "Retried") => ({ type: "system.retry", title, targetUserId: target.id });
  const inboxSize = async (user: TestUser) => {
    const rows = await t().db.db.select({ id: notifications.id }).from(notifications).where(eq(notifications.userId, user.id));
    return rows.length;
  };
  const keyRows = (user: TestUser) => t().db.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, user.id));

  describe("a repeat", () => {
    it("of a cohort creation answers the first 201 and its body again, and creates one cohort", async () => {
      const admin = await t().signUp({ admin: true });
      const key = newKey();
      const cohortNumber = uniqueCohortNumber();
      const proIds = [`idem-${cohortNumber}-a`, `idem-${cohortNumber}-b`];
      const first = await send(admin, "POST", COHORTS, { key, payload: { cohortNumber, proIds } });
      expect(first.statusCode).toBe(201);
      const repeat = await send(admin, "POST", COHORTS, { key, payload: { cohortNumber, proIds } });
      expectReplayOf(repeat, first);
      // The same fields in another order are the same body.
      expectReplayOf(await send(admin, "POST", COHORTS, { key, payload: { proIds, cohortNumber } }), first);

      const cohorts = await t().db.db.select().from(restrictionCohorts).where(eq(restrictionCohorts.cohortNumber, cohortNumber));
      expect(cohorts.map((c) => c.id)).toEqual([first.json().data.id]);
    });

    it("of a refused request answers the same 4xx again, even once the request would pass", async () => {
      const admin = await t().signUp({ admin: true });
      const created = await send(admin, "POST", COHORTS, { payload: { cohortNumber: uniqueCohortNumber(), proIds: ["idem-4xx"] } });
      const cohortId = created.json().data.id as string;
      const key = newKey();
      const blocked = await send(admin, "POST", `${COHORTS}/${cohortId}/activate`, { key });
      expect(blocked.statusCode).toBe(400);
      expect(blocked.json().error.message).toMatch(/^Activation blocked: no gate check/);

      expect((await send(admin, "POST", `${COHORTS}/${cohortId}/check-gates`, { payload: PASSING })).statusCode).toBe(201);
      expectReplayOf(await send(admin, "POST", `${COHORTS}/${cohortId}/activate`, { key }), blocked);
      const [cohort] = await t().db.db.select().from(restrictionCohorts).where(eq(restrictionCohorts.id, cohortId));
      expect(cohort!.status).toBe("pending");
      // A new key is a new request.
      const activated = await send(admin, "POST", `${COHORTS}/${cohortId}/activate`, { key: newKey() });
      expect(activated.statusCode).toBe(200);
      expect(activated.json().data.status).toBe("active");
    });

    it("of a DELETE and a PATCH answers their first 200, where running again would be a 404", async () => {
      const admin = await t().signUp({ admin: true });
      const notification = await send(admin, "POST", `${INBOX}/test/in-app`, { payload: inAppFor(admin) });
      const id = notification.json().data.notification.id as string;
      const [readKey, deleteKey] = [newKey(), newKey()];
      const read = await send(admin, "PATCH", `${INBOX}/${id}/read`, { key: readKey });
      const removed = await send(admin, "DELETE", `${INBOX}/${id}`, { key: deleteKey });
      expect([read.statusCode, removed.statusCode]).toEqual([200, 200]);
      expect((await send(admin, "DELETE", `${INBOX}/${id}`)).statusCode).toBe(404);
      expectReplayOf(await send(admin, "DELETE", `${INBOX}/${id}`, { key: deleteKey }), removed);
      expectReplayOf(await send(admin, "PATCH", `${INBOX}/${id}/read`, { key: readKey }), read);
    });
  });

  describe("the same key with another request", () => {
    const reused = {
      success: false,
      error: {
        code: "VALIDATION_ERROR",
        message: "Idempotency-Key was used with a different request",
        details: [{ field: "Idempotency-Key", message: "already used with another method, path or body" }],
      },
    };

    it("another body, path or query: 422 VALIDATION_ERROR, and nothing runs", async () => {
      const admin = await t().signUp({ admin: true });
      const key = newKey();
      expect((await send(admin, "POST", `${INBOX}/test/in-app`, { key, payload: inAppFor(admin, "First") })).statusCode).toBe(200);

      const otherBody = await send(admin, "POST", `${INBOX}/test/in-app`, { key, payload: inAppFor(admin, "Second") });
      expect(otherBody.statusCode).toBe(422);
      expect(otherBody.json()).toEqual(reused);
      expect(replayed(otherBody)).toBeUndefined();
      // The first request's body, sent to another path.
      const otherPath = await send(admin, "POST", COHORTS, { key, payload: inAppFor(admin, "First") });
      expect(otherPath.statusCode).toBe(422);
      expect(otherPath.json()).toEqual(reused);
      expect(await inboxSize(admin)).toBe(1);

      const readAllKey = newKey();
      expect((await send(admin, "PATCH", `${INBOX}/read-all?category=messages`, { key: readAllKey })).statusCode).toBe(200);
      const otherQuery = await send(admin, "PATCH", `${INBOX}/read-all`, { key: readAllKey });
      expect(otherQuery.statusCode).toBe(422);
      expect(otherQuery.json()).toEqual(reused);
    });

    it("another method on the same path and body: 422, and the first request's effect stands", async () => {
      const user = await t().signUp();
      const key = newKey();
      const { p256dh, auth } = makeSubscriber();
      const payload = { endpoint: `https://push.example.test/idem/${randomBytes(6).toString("hex")}`, p256dh, auth };
      expect((await send(user, "POST", `${INBOX}/subscriptions`, { key, payload })).statusCode).toBe(200);
      const otherMethod = await send(user, "DELETE", `${INBOX}/subscriptions`, { key, payload });
      expect(otherMethod.statusCode).toBe(422);
      expect(otherMethod.json()).toEqual(reused);
      const listed = await send(user, "GET", `${INBOX}/subscriptions`);
      expect(listed.json().data.subscriptions.map((s: { endpoint: string }) => s.endpoint)).toEqual([payload.endpoint]);
    });
  });

  it("parallel requests with one key while the first runs: exactly one runs, every other one is 409", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const subscriber = makeSubscriber();
    // The push service never answers: the test push runs until its timeout.
    const endpoint = pushService.endpoint("hang");
    const subscribed = await send(target, "POST", `${INBOX}/subscriptions`, {
      payload: { endpoint, p256dh: subscriber.p256dh, auth: subscriber.auth },
    });
    expect(subscribed.statusCode).toBe(200);

    const key = newKey();
    const payload = { type: "system.slow", title: "Slow", targetUserId: target.id };
    const responses = await Promise.all(Array.from({ length: 5 }, () => send(admin, "POST", `${INBOX}/test/push`, { key, payload })));
    const ran = responses.filter((r) => r.statusCode === 200);
    expect(ran).toHaveLength(1);
    expect(ran[0]!.json().data).toMatchObject({ sent: 0, failed: 1 });
    const busy = responses.filter((r) => r.statusCode !== 200);
    expect(busy.map((r) => r.statusCode)).toEqual([409, 409, 409, 409]);
    for (const r of busy) {
      expect(r.json()).toEqual({
        success: false,
        error: { code: "CONFLICT", message: "A request with this Idempotency-Key is still running; retry after it answers" },
      });
    }
    expect(pushService.received.filter((r) => endpoint.endsWith(r.path))).toHaveLength(1);
    // Once it has answered, a retry is its replay.
    expectReplayOf(await send(admin, "POST", `${INBOX}/test/push`, { key, payload }), ran[0]!);
  });

  describe("expiry", () => {
    it("a key past its 24 hours runs again and keeps the new answer", async () => {
      const admin = await t().signUp({ admin: true });
      const key = newKey();
      const started = Date.now();
      const first = await send(admin, "POST", `${INBOX}/test/in-app`, { key, payload: inAppFor(admin) });
      const [row] = await keyRows(admin);
      expect(row).toMatchObject({ key, status: 200, responseBody: first.body });
      const kept = row!.expiresAt.getTime() - started;
      expect(kept).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
      expect(kept).toBeLessThanOrEqual(24 * 3600_000 + 60_000);

      await t()
        .db.db.update(idempotencyKeys)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(and(eq(idempotencyKeys.userId, admin.id), eq(idempotencyKeys.key, key)));
      const again = await send(admin, "POST", `${INBOX}/test/in-app`, { key, payload: inAppFor(admin) });
      expect(again.statusCode).toBe(200);
      expect(replayed(again)).toBeUndefined();
      expect(again.json().data.notification.id).not.toBe(first.json().data.notification.id);
      expect(await inboxSize(admin)).toBe(2);
      expectReplayOf(await send(admin, "POST", `${INBOX}/test/in-app`, { key, payload: inAppFor(admin) }), again);
    });

    it("a claim removes expired keys of any caller", async () => {
      const [someone, caller] = [await t().signUp(), await t().signUp()];
      const keys = Array.from({ length: 3 }, newKey);
      await t()
        .db.db.insert(idempotencyKeys)
        .values(
          keys.map((key) => ({
            userId: someone.id,
            key,
            fingerprint: "x",
            status: 200,
            responseBody: "{}",
            expiresAt: new Date(Date.now() - 1000),
          })),
        );
      expect((await send(caller, "PATCH", `${INBOX}/read-all`, { key: newKey() })).statusCode).toBe(200);
      const left = await t()
        .db.db.select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.userId, someone.id), inArray(idempotencyKeys.key, keys)));
      expect(left).toEqual([]);
    });
  });

  it("keys are per caller: another user's request with the same key runs on its own", async () => {
    const [alice, bob] = [await t().signUp({ admin: true }), await t().signUp({ admin: true })];
    const key = newKey();
    const fromAlice = await send(alice, "POST", `${INBOX}/test/in-app`, { key, payload: inAppFor(alice) });
    const fromBob = await send(bob, "POST", `${INBOX}/test/in-app`, { key, payload: inAppFor(alice) });
    expect([fromAlice.statusCode, fromBob.statusCode]).toEqual([200, 200]);
    expect([replayed(fromAlice), replayed(fromBob)]).toEqual([undefined, undefined]);
    expect(await inboxSize(alice)).toBe(2);
    expect((await keyRows(alice)).map((r) => r.key)).toEqual([key]);
    expect((await keyRows(bob)).map((r) => r.key)).toEqual([key]);
  });

  describe("where the header does not apply", () => {
    it("without the header, a repeat runs again and nothing is stored", async () => {
      const admin = await t().signUp({ admin: true });
      const first = await send(admin, "POST", `${INBOX}/test/in-app`, { payload: inAppFor(admin) });
      const second = await send(admin, "POST", `${INBOX}/test/in-app`, { payload: inAppFor(admin) });
      expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
      expect([replayed(first), replayed(second)]).toEqual([undefined, undefined]);
      expect(await inboxSize(admin)).toBe(2);
      expect(await keyRows(admin)).toEqual([]);
    });

    it("without a session the route answers 401 and the key is not stored", async () => {
      const key = newKey();
      const res = await send(null, "POST", COHORTS, { key, payload: { cohortNumber: uniqueCohortNumber(), proIds: ["x"] } });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe("UNAUTHORIZED");
      expect(await t().db.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key))).toEqual([]);
    });

    it("reads, tRPC and better-auth's paths ignore the header, even a malformed one", async () => {
      const user = await t().signUp();
      const bad = "not a key";
      const read = await send(user, "GET", `${INBOX}/unread-count`, { key: bad });
      expect(read.statusCode).toBe(200);
      const trpc = await t().app.inject({
        method: "POST",
        url: "/trpc/notifications.markAllRead",
        headers: { ...user.headers, "content-type": "application/json", "idempotency-key": bad },
        payload: { json: {} },
      });
      expect(trpc.statusCode).toBe(200);
      const signIn = await t().app.inject({
        method: "POST",
        url: "/api/auth/sign-in/email",
        headers: { origin: "http://127.0.0.1:3000", "idempotency-key": bad },
        payload: { email: user.email, password: "correct-horse-battery" },
      });
      expect(signIn.statusCode).toBe(200);
      expect(await keyRows(user)).toEqual([]);
    });
  });

  describe("a malformed key", () => {
    it.each([
      ["empty", ""],
      ["256 characters", "k".repeat(256)],
      ["a space", "two words"],
      ["a tab", "tab\tkey"],
      ["a character beyond ASCII", "caf\u00e9"],
    ])("with %s: 400 VALIDATION_ERROR naming the header, and nothing runs", async (_what, key) => {
      const admin = await t().signUp({ admin: true });
      const cohortNumber = uniqueCohortNumber();
      const res = await send(admin, "POST", COHORTS, { key, payload: { cohortNumber, proIds: ["bad-key"] } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid Idempotency-Key header",
          details: [{ field: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters (no spaces)" }],
        },
      });
      expect(await t().db.db.select().from(restrictionCohorts).where(eq(restrictionCohorts.cohortNumber, cohortNumber))).toEqual([]);
    });

    it("the bounds pass: one character, 255 characters, every visible ASCII character", async () => {
      const user = await t().signUp();
      const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
      for (const key of ["k", "k".repeat(255), visible]) {
        const res = await send(user, "PATCH", `${INBOX}/read-all`, { key });
        expect(res.statusCode).toBe(200);
      }
      expect(await keyRows(user)).toHaveLength(3);
    });
  });
});

describe("safe retries: a 5xx is not stored", () => {
  // No VAPID keys: POST /test/push answers its bare 500 (docs/api.md#errors).
  const t = useTestApp();
  const send = requester(t);

  it("a retry with the same key runs again and is not a replay", async () => {
    const admin = await t().signUp({ admin: true });
    const key = newKey();
    const payload = { type: "system.retry", title: "Retry", targetUserId: admin.id };
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await send(admin, "POST", `${INBOX}/test/push`, { key, payload });
      expect(res.statusCode).toBe(500);
      expect(res.body).toBe('{"error":"VAPID not configured"}');
      expect(replayed(res)).toBeUndefined();
    }
    expect(await t().db.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.userId, admin.id))).toEqual([]);
  });
});
