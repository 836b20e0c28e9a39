// docs/api.md#audit-trail: every admin change writes exactly one audit event in its own transaction,
// through REST and tRPC alike, with the actor, the target, the record before and after, the reason and the
// request id; a refused request writes none; the database refuses to rewrite history.
import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import webpush from "web-push";
import { auditEvents } from "../../db/schema/index.js";
import { ensureBootstrapAdmin } from "../../server/auth/admin-bootstrap.js";
import { type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { asJson, auditMark } from "../helpers/audit.js";
import { FAILING_GATES, newProIds, PASSING_GATES, registeredPro } from "../helpers/fixtures.js";

const vapid = { ...webpush.generateVAPIDKeys(), subject: "mailto:ops@example.test" };
const t = useTestApp({ push: { vapid } });

/** Runs `act` and returns its result with the one event it wrote (failing if it wrote another number). */
async function oneEvent<T>(act: () => Promise<T>) {
  const mark = await auditMark(t().db.db);
  const result = await act();
  const events = await mark.since();
  expect(events).toHaveLength(1);
  return { result, event: events[0]! };
}

const rest = async (admin: TestUser, method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object, requestId?: string) => {
  const res = await t().app.inject({
    method,
    url,
    headers: { ...admin.headers, ...(requestId ? { "x-request-id": requestId } : {}) },
    ...(payload ? { payload } : {}),
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data as Record<string, unknown>;
};

const actorOf = (admin: TestUser) => ({ id: admin.id, email: admin.email });

describe("one audit event per change", () => {
  it("cohort.create over REST: after is the cohort, with the request id", async () => {
    const admin = await t().signUp({ admin: true });
    const requestId = `req-${randomBytes(4).toString("hex")}`;
    const { result: cohort, event } = await oneEvent(() =>
      rest(admin, "POST", "/api/admin/restriction/cohorts", { cohortNumber: uniqueCohortNumber(), proIds: newProIds(2) }, requestId),
    );
    expect(event).toMatchObject({
      actor: actorOf(admin),
      action: "cohort.create",
      target: { type: "cohort", id: cohort.id },
      before: null,
      after: cohort,
      reason: null,
      requestId,
    });
    expect(event.at).toBeInstanceOf(Date);
  });

  it("cohort.check_gates through tRPC: after is the gate check", async () => {
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin).restriction;
    const cohort = await api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) });
    const { result: check, event } = await oneEvent(() => api.checkGates({ id: cohort.id, ...FAILING_GATES }));
    expect(event).toMatchObject({
      actor: actorOf(admin),
      action: "cohort.check_gates",
      target: { type: "cohort", id: cohort.id },
      before: null,
      after: asJson(check),
    });
  });

  it("cohort.activate over REST and cohort.rollback through tRPC: the cohort before and after, and the reason", async () => {
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin).restriction;
    const pending = await api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(3) });
    await api.checkGates({ id: pending.id, ...PASSING_GATES });

    const { result: active, event: activated } = await oneEvent(() =>
      rest(admin, "POST", `/api/admin/restriction/cohorts/${pending.id}/activate`),
    );
    expect(activated).toMatchObject({
      action: "cohort.activate",
      target: { type: "cohort", id: pending.id },
      before: asJson(pending),
      after: active,
      reason: null,
    });

    const { result: rolledBack, event: rollback } = await oneEvent(() => api.rollbackCohort({ id: pending.id, reason: "complaints" }));
    expect(rollback).toMatchObject({ action: "cohort.rollback", before: active, after: asJson(rolledBack), reason: "complaints" });
  });

  it("cohort.activate and cohort.rollback: before and after are exactly the API's cohort, timestamps with microseconds included", async () => {
    // The statement builds both records in SQL; Dates as JSON show milliseconds, truncated.
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin).restriction;
    const pending = await api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(2) });
    await t().db.db.execute(sql`update restriction_cohorts
      set created_at = '2026-01-02T03:04:05.999999Z', activated_at = '2026-01-01T00:00:00.000500Z', rollback_reason = 'it''s "quoted"'
      where id = ${pending.id}`);
    const [stored] = await t()
      .caller(admin)
      .restriction.listCohorts()
      .then((all) => all.filter((c) => c.id === pending.id));
    expect(asJson(stored)).toMatchObject({ createdAt: "2026-01-02T03:04:05.999Z", activatedAt: "2026-01-01T00:00:00.000Z" });
    await api.checkGates({ id: pending.id, ...PASSING_GATES });

    const { result: active, event: activated } = await oneEvent(() => api.activateCohort({ id: pending.id }));
    expect(activated.before).toEqual(asJson(stored));
    expect(activated.after).toEqual(asJson(active));
    const { result: rolledBack, event: rollback } = await oneEvent(() => api.rollbackCohort({ id: pending.id }));
    expect(rollback.before).toEqual(asJson(active));
    expect(rollback.after).toEqual(asJson(rolledBack));
    expect(rollback.reason).toBeNull();
  });

  it("pro.activate through tRPC and pro.rollback over REST: the status before (null when none) and after", async () => {
    const admin = await t().signUp({ admin: true });
    const proId = await registeredPro(t().db.db);
    const { result: on, event: activated } = await oneEvent(() => t().caller(admin).restriction.activatePro({ proId }));
    expect(activated).toMatchObject({ action: "pro.activate", target: { type: "pro", id: proId }, before: null, after: asJson(on) });
    const { result: off, event: rolledBack } = await oneEvent(() => rest(admin, "POST", `/api/admin/restriction/${proId}/rollback`));
    expect(rolledBack).toMatchObject({ action: "pro.rollback", before: asJson(on), after: off });
  });

  it("notification.test_in_app, notification.test_push (after is the push result) and subscriptions.clear target a user", async () => {
    const admin = await t().signUp({ admin: true });
    const target = await t().signUp();
    const body = { type: "system.test", title: "Hello", targetUserId: target.id };

    const { result: created, event: inApp } = await oneEvent(() => rest(admin, "POST", "/api/notifications/test/in-app", body));
    expect(inApp).toMatchObject({
      action: "notification.test_in_app",
      target: { type: "user", id: target.id },
      before: null,
      after: created.notification,
    });

    const { result: pushed, event: push } = await oneEvent(() => t().caller(admin).notifications.testPush(body));
    expect(push).toMatchObject({ action: "notification.test_push", target: { type: "user", id: target.id }, after: asJson(pushed) });

    const { event: cleared } = await oneEvent(() => rest(admin, "DELETE", "/api/notifications/test/subscriptions"));
    expect(cleared).toMatchObject({ action: "subscriptions.clear", actor: actorOf(admin), target: { type: "user", id: admin.id } });
  });

  it("admin.bootstrap: the start-up admin is its own actor; a restart writes nothing", async () => {
    const email = `boot-${randomBytes(4).toString("hex")}@test.local`;
    const admin = { email, password: "a-long-admin-password", name: "Boot" };
    const { result, event } = await oneEvent(() => ensureBootstrapAdmin(t().db.db, t().auth, admin));
    expect(event).toMatchObject({
      action: "admin.bootstrap",
      actor: { id: result.userId, email },
      target: { type: "user", id: result.userId },
      before: null,
    });
    expect(event.after).toMatchObject({ id: result.userId, email, role: "admin" });

    const mark = await auditMark(t().db.db);
    expect((await ensureBootstrapAdmin(t().db.db, t().auth, admin)).created).toBe(false);
    expect(await mark.since()).toEqual([]);
  });
});

describe("refused requests write no event", () => {
  it("400, 401, 403, 404 and 409 leave the trail as it was", async () => {
    const admin = await t().signUp({ admin: true });
    const user = await t().signUp();
    const api = t().caller(admin).restriction;
    const cohort = await api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) });
    const mark = await auditMark(t().db.db);
    const refused = [
      { method: "POST", url: "/api/admin/restriction/cohorts", headers: admin.headers, payload: { cohortNumber: -1, proIds: [] } },
      { method: "POST", url: `/api/admin/restriction/cohorts/${cohort.id}/activate`, headers: admin.headers },
      { method: "POST", url: "/api/admin/restriction/cohorts", payload: { cohortNumber: 5, proIds: ["a"] } },
      { method: "POST", url: "/api/admin/restriction/cohorts", headers: user.headers, payload: { cohortNumber: 5, proIds: ["a"] } },
      { method: "POST", url: "/api/admin/restriction/pro-nobody/activate", headers: admin.headers },
      {
        method: "POST",
        url: "/api/admin/restriction/cohorts",
        headers: admin.headers,
        payload: { cohortNumber: cohort.cohortNumber, proIds: ["a"] },
      },
      {
        method: "POST",
        url: "/api/notifications/test/in-app",
        headers: admin.headers,
        payload: { type: "x", title: "y", targetUserId: "nobody" },
      },
    ] as const;
    const statuses = [];
    for (const request of refused) statuses.push((await t().app.inject(request)).statusCode);
    expect(statuses).toEqual([400, 400, 401, 403, 404, 409, 404]);
    expect(await mark.since()).toEqual([]);
  });
});

describe("append-only", () => {
  it("the database refuses UPDATE, DELETE and TRUNCATE of audit events", async () => {
    const admin = await t().signUp({ admin: true });
    await t()
      .caller(admin)
      .restriction.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) });
    for (const statement of [
      sql`update audit_events set reason = 'rewritten'`,
      sql`delete from audit_events`,
      sql`truncate audit_events`,
    ]) {
      await expect(t().db.db.execute(statement)).rejects.toThrow();
    }
    expect(await t().db.db.$count(auditEvents, eq(auditEvents.reason, "rewritten"))).toBe(0);
    expect(await t().db.db.$count(auditEvents)).toBeGreaterThan(0);
  });
});
