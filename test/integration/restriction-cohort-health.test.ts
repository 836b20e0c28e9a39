// docs/api.md#new-cohort-preview and #cohort-coverage: what the console tells an operator before creating a
// cohort (its number taken, unknown pros, pros an active cohort holds) and after (which of an active
// cohort's pros a later change switched off, and which change). Both read; neither writes.
import { describe, expect, it } from "vitest";
import { type TestUser, uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { activeCohort, newCohort, newProIds, registerPros } from "../helpers/fixtures.js";
import type { ApiError, WireOutput } from "../helpers/rest.js";
import { snapshotTables } from "../helpers/snapshot.js";

const t = useTestApp();
const R = "/api/admin/restriction";

async function call<T>(user: TestUser, method: "GET" | "POST", url: string, payload?: Record<string, unknown>) {
  const res = await t().app.inject({ method, url, headers: user.headers, ...(payload === undefined ? {} : { payload }) });
  const body = res.json() as { data: T; error?: ApiError };
  return { status: res.statusCode, data: body.data, error: body.error };
}

describe("POST /api/admin/restriction/cohorts/preview", () => {
  it("names a taken number, the unknown pros and the active cohorts already holding some, and writes nothing", async () => {
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin).restriction;
    const [known, held, unknown] = newProIds(3) as [string, string, string];
    await registerPros(t().db.db, [known, held]);
    const holder = await activeCohort(api, [held]);
    await newCohort(api, [known]); // pending: holds nothing yet

    const before = await snapshotTables(t().db.db);
    const fresh = await call<WireOutput<"restriction.previewNewCohort">>(admin, "POST", `${R}/cohorts/preview`, {
      cohortNumber: uniqueCohortNumber(),
      proIds: [known, held, unknown],
    });
    const taken = await call<WireOutput<"restriction.previewNewCohort">>(admin, "POST", `${R}/cohorts/preview`, {
      cohortNumber: holder.cohortNumber,
      proIds: [known],
    });
    expect(await snapshotTables(t().db.db)).toEqual(before);

    expect(fresh).toMatchObject({ status: 200 });
    expect(fresh.data).toEqual({
      cohortNumberTaken: false,
      unknownPros: [unknown],
      alsoInActiveCohorts: [{ proId: held, cohortIds: [holder.id] }],
    });
    expect(taken.data).toEqual({ cohortNumberTaken: true, unknownPros: [], alsoInActiveCohorts: [] });
    // Without a number, the pros alone: how the console's pro lookup tells a known pro from an unknown one.
    const prosAlone = await t()
      .caller(admin)
      .restriction.previewNewCohort({ proIds: [known, unknown] });
    expect(prosAlone).toEqual({ cohortNumberTaken: null, unknownPros: [unknown], alsoInActiveCohorts: [] });
  });

  it("refuses what creation refuses, with the same 400", async () => {
    const admin = await t().signUp({ admin: true });
    const refused = await call(admin, "POST", `${R}/cohorts/preview`, { cohortNumber: 0, proIds: ["a", "a"] });
    expect(refused.status).toBe(400);
    expect(refused.error?.details?.map((d) => d.field).sort()).toEqual(["cohortNumber", "proIds"]);
  });
});

describe("GET /api/admin/restriction/cohorts/:id/coverage", () => {
  it("lists an active cohort's pros that are off now, each with the rollback or per-pro change that switched it off", async () => {
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin).restriction;
    const [kept, sharedPro, perPro] = newProIds(3) as [string, string, string];
    await registerPros(t().db.db, [perPro]);
    const cohort = await activeCohort(api, [kept, sharedPro, perPro]);
    const overlapping = await activeCohort(api, [sharedPro]);
    await api.rollbackCohort({ id: overlapping.id, reason: "complaints from pros" });
    await api.rollbackPro({ proId: perPro });

    const { status, data } = await call<WireOutput<"restriction.cohortCoverage">>(admin, "GET", `${R}/cohorts/${cohort.id}/coverage`);
    expect(status).toBe(200);
    const actor = { id: admin.id, email: admin.email };
    expect(data).toMatchObject({
      cohortId: cohort.id,
      status: "active",
      restricted: 1,
      notRestricted: [
        {
          proId: sharedPro,
          turnedOffBy: {
            via: "cohort",
            cohortId: overlapping.id,
            cohortNumber: overlapping.cohortNumber,
            action: "cohort.rollback",
            reason: "complaints from pros",
            actor,
          },
        },
        { proId: perPro, turnedOffBy: { via: "pro", cohortId: null, cohortNumber: null, action: "pro.rollback", reason: null, actor } },
      ],
    });
    // The event named is the change in the pro's own history.
    const history = await api.proHistory({ proId: sharedPro });
    expect(data.notRestricted[0]?.turnedOffBy?.auditEventId).toBe(history.changes[0]?.auditEventId);
  });

  it("reads a fully restricted cohort as whole, a pending one as never set, and an unknown cohort as 404", async () => {
    const admin = await t().signUp({ admin: true });
    const api = t().caller(admin).restriction;
    const whole = await activeCohort(api);
    expect(await api.cohortCoverage({ id: whole.id })).toEqual({ cohortId: whole.id, status: "active", restricted: 2, notRestricted: [] });

    const pending = await newCohort(api);
    expect(await api.cohortCoverage({ id: pending.id })).toEqual({
      cohortId: pending.id,
      status: "pending",
      restricted: 0,
      notRestricted: pending.proIds.map((proId) => ({ proId, turnedOffBy: null })),
    });
    for (const id of ["b8d80106-7951-44af-a9a3-2b30aa3948eb", "not-a-uuid"]) {
      expect((await call(admin, "GET", `${R}/cohorts/${id}/coverage`)).status).toBe(404);
    }
  });
});
