// docs/api.md#audit-trail, #pro-history and #impact-preview: the audit log's filters and cursor, a pro's
// history across per-pro and overlapping cohort changes, and a preview that says exactly what the action
// then does while writing nothing.
import { randomBytes } from "node:crypto";
import { inArray } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { proRestrictionStatus } from "../../db/schema/index.js";
import { type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { NO_CHECK, newProIds, PASSING_GATES, registerPros } from "../helpers/fixtures.js";
import type { ApiError, WireOutput } from "../helpers/rest.js";
import { snapshotTables } from "../helpers/snapshot.js";

const t = useTestApp();

type AuditPage = WireOutput<"audit.list">;
type History = WireOutput<"restriction.proHistory">;
type Preview = WireOutput<"restriction.previewCohort">;

const get = async <T = unknown>(user: TestUser, url: string) => {
  const res = await t().app.inject({ method: "GET", url, headers: user.headers });
  const body = res.json() as { data: T; error?: ApiError };
  return { status: res.statusCode, data: body.data, error: body.error };
};

async function adminWithCohorts() {
  const admin = await t().signUp({ admin: true });
  const api = t().caller(admin).restriction;
  const passed = async (proIds: string[]) => {
    const cohort = await api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds });
    await api.checkGates({ id: cohort.id, ...PASSING_GATES });
    return cohort;
  };
  return { admin, api, passed };
}

describe("GET /api/admin/audit", () => {
  it("filters by action, target, actor and time, newest first, and pages by cursor to the end", async () => {
    const { admin, api, passed } = await adminWithCohorts();
    const since = new Date().toISOString();
    const cohort = await passed(newProIds(2));
    await api.activateCohort({ id: cohort.id });
    await api.rollbackCohort({ id: cohort.id, reason: "paging" });

    const mine = await get<AuditPage>(admin, `/api/admin/audit?actorId=${admin.id}&since=${since}`);
    expect(mine.status).toBe(200);
    const actions = mine.data.events.map((e) => e.action);
    expect(actions).toEqual(["cohort.rollback", "cohort.activate", "cohort.check_gates", "cohort.create"]);

    const target = await get<AuditPage>(admin, `/api/admin/audit?targetType=cohort&targetId=${cohort.id}&action=cohort.rollback`);
    expect(target.data.events).toHaveLength(1);
    expect(target.data.events[0]).toMatchObject({ reason: "paging", actor: { id: admin.id, email: admin.email } });

    const seen: string[] = [];
    let url = `/api/admin/audit?actorId=${admin.id}&limit=1`;
    for (;;) {
      const page = await get<AuditPage>(admin, url);
      seen.push(...page.data.events.map((e) => e.id));
      if (page.data.nextCursor === null) break;
      url = `/api/admin/audit?actorId=${admin.id}&limit=1&cursor=${page.data.nextCursor}`;
    }
    expect(seen).toEqual(mine.data.events.map((e) => e.id));

    const future = await get<AuditPage>(admin, `/api/admin/audit?actorId=${admin.id}&since=2999-01-01T00:00:00Z`);
    expect(future.data).toEqual({ events: [], nextCursor: null });
    const past = await get<AuditPage>(admin, `/api/admin/audit?actorId=${admin.id}&until=2000-01-01T00:00:00Z`);
    expect(past.data.events).toEqual([]);
  });

  it.each([
    ["action=cohort.nope", "action"],
    ["targetType=team", "targetType"],
    ["limit=0", "limit"],
    ["limit=201", "limit"],
    ["limit=ten", "limit"],
    ["since=yesterday", "since"],
    ["until=2026-11-21", "until"],
    ["cursor=not-a-cursor", "cursor"],
  ])("refuses %s with 400 naming %s", async (query, field) => {
    const admin = await t().signUp({ admin: true });
    const res = await get(admin, `/api/admin/audit?${query}`);
    expect(res.status).toBe(400);
    expect(res.error?.details?.map((d) => d.field)).toEqual([field]);
  });

  it("an Idempotency-Key replay changes nothing and writes no second event", async () => {
    const { admin } = await adminWithCohorts();
    const request = {
      method: "POST",
      url: "/api/admin/restriction/cohorts",
      headers: { ...admin.headers, "idempotency-key": `k-${randomBytes(6).toString("hex")}` },
      payload: { cohortNumber: uniqueCohortNumber(), proIds: ["pro-replayed"] },
    } as const;
    const count = async () => (await get<AuditPage>(admin, `/api/admin/audit?actorId=${admin.id}&action=cohort.create`)).data.events.length;
    expect((await t().app.inject(request)).statusCode).toBe(201);
    const before = await count();
    const replay = await t().app.inject(request);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(await count()).toBe(before);
  });
});

describe("GET /api/admin/restriction/:proId/history", () => {
  it("lists every change of a pro's flag, per pro and by overlapping cohorts, with the flag before", async () => {
    const { admin, api, passed } = await adminWithCohorts();
    const [proId] = newProIds(1) as [string];
    await registerPros(t().db.db, [proId]);
    const a = await passed([proId, ...newProIds(1)]);
    const b = await passed([proId]);
    await api.activateCohort({ id: a.id });
    await api.activateCohort({ id: b.id });
    await api.rollbackCohort({ id: a.id });
    await api.activatePro({ proId });

    const res = await get<History>(admin, `/api/admin/restriction/${proId}/history`);
    expect(res.status).toBe(200);
    const { changes } = res.data;
    expect(res.data.proId).toBe(proId);
    expect(changes.map((c) => [c.via, c.cohortNumber, c.previous, c.restrictionActive])).toEqual([
      ["pro", null, false, true],
      ["cohort", a.cohortNumber, true, false],
      ["cohort", b.cohortNumber, true, true],
      ["cohort", a.cohortNumber, false, true],
    ]);
    for (const change of changes) expect(change.actor).toEqual({ id: admin.id, email: admin.email });
    const events = await get<AuditPage>(admin, `/api/admin/audit?targetType=cohort&targetId=${a.id}&action=cohort.rollback`);
    expect(changes[1]!.auditEventId).toBe(events.data.events[0]!.id);
  });

  it("answers {proId, changes: []} for a pro never changed", async () => {
    const admin = await t().signUp({ admin: true });
    expect((await get<History>(admin, "/api/admin/restriction/pro-never/history")).data).toEqual({ proId: "pro-never", changes: [] });
  });
});

describe("GET /api/admin/restriction/cohorts/:id/preview", () => {
  it("says what activation would do, including the block, unknown pros and other active cohorts, and writes nothing", async () => {
    const { admin, api, passed } = await adminWithCohorts();
    const [known, shared, unknown] = newProIds(3) as [string, string, string];
    await registerPros(t().db.db, [known, shared]);
    const other = await passed([shared]);
    await api.activateCohort({ id: other.id });
    const cohort = await api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: [known, shared, unknown] });

    const before = await snapshotTables(t().db.db);
    const activate = await get<Preview>(admin, `/api/admin/restriction/cohorts/${cohort.id}/preview?action=activate`);
    const rollback = await get<Preview>(admin, `/api/admin/restriction/cohorts/${cohort.id}/preview?action=rollback`);
    expect(await snapshotTables(t().db.db)).toEqual(before);

    expect(activate.data).toEqual({
      action: "activate",
      cohortId: cohort.id,
      blockedBy: NO_CHECK,
      turnOn: [known, unknown],
      turnOff: [],
      unchanged: [shared],
      unknownPros: [unknown],
      alsoInOtherActiveCohorts: [{ proId: shared, cohortIds: [other.id] }],
    });
    expect(rollback.data).toMatchObject({ blockedBy: null, turnOff: [shared], unchanged: [known, unknown] });
  });

  it("answers 404 for an unknown cohort and 400 without a valid action", async () => {
    const admin = await t().signUp({ admin: true });
    expect((await get(admin, "/api/admin/restriction/cohorts/00000000-0000-4000-8000-000000000000/preview?action=activate")).status).toBe(
      404,
    );
    const missing = await get(admin, "/api/admin/restriction/cohorts/00000000-0000-4000-8000-000000000000/preview");
    expect(missing.status).toBe(400);
    expect(missing.error?.details?.map((d) => d.field)).toEqual(["action"]);
  });

  it("matches what the action then does, for random cohorts and overlaps", async () => {
    const { api, passed } = await adminWithCohorts();
    const universe = newProIds(6);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ members: fc.subarray(universe, { minLength: 1 }), act: fc.constantFrom("activate", "rollback", "none") }), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.subarray(universe, { minLength: 1 }),
        fc.constantFrom("activate" as const, "rollback" as const),
        async (earlier, members, action) => {
          for (const step of earlier) {
            const cohort = await passed(step.members);
            if (step.act === "activate") await api.activateCohort({ id: cohort.id });
            if (step.act === "rollback") await api.rollbackCohort({ id: cohort.id });
          }
          const cohort = await passed(members);
          const preview = await api.previewCohort({ id: cohort.id, action });
          const flags = async () =>
            new Map(
              (await t().db.db.select().from(proRestrictionStatus).where(inArray(proRestrictionStatus.proId, members))).map((s) => [
                s.proId,
                s.restrictionActive,
              ]),
            );
          const before = await flags();
          if (action === "activate") await api.activateCohort({ id: cohort.id });
          else await api.rollbackCohort({ id: cohort.id });
          const after = await flags();
          const flipped = members.filter((p) => (before.get(p) ?? false) !== after.get(p));
          expect(preview.blockedBy).toBeNull();
          expect([...preview.turnOn, ...preview.turnOff].sort()).toEqual(flipped.sort());
          expect(action === "activate" ? preview.turnOff : preview.turnOn).toEqual([]);
        },
      ),
      { numRuns: 12 },
    );
  });
});
