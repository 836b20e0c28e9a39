// Rollout cohorts through the procedures (createCaller) against a real, migrated database: creating and
// listing them, rolling them back, which cohort tags a pro listed twice, and unknown cohorts (docs/api.md#cohorts:
// limits, conflicts, messages and ordering; gate checks and activation are in
// restriction-gates.caller.test.ts, per-pro flags in restriction-pros.caller.test.ts).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { expectProStatuses, expectValidationError } from "../helpers/caller-expect.js";
import { type RestrictionApi as Api, activeCohort, adminRestrictionApi, newCohort, newProIds, PASSING_GATES } from "../helpers/fixtures.js";

describe("restriction cohorts (createCaller)", () => {
  const t = useTestApp();
  const adminApi = () => adminRestrictionApi(t());

  describe("createCohort", () => {
    it("creates a pending cohort with no activation or rollback yet", async () => {
      const api = await adminApi();
      const proIds = newProIds(3);
      const cohortNumber = uniqueCohortNumber();
      const before = Date.now();
      const cohort = await api.createCohort({ cohortNumber, proIds });
      expect(cohort).toMatchObject({
        cohortNumber,
        proIds,
        status: "pending",
        activatedAt: null,
        rollbackAt: null,
        rollbackReason: null,
      });
      expect(cohort.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(cohort.createdAt).toBeInstanceOf(Date);
      expect(Math.abs(cohort.createdAt.getTime() - before)).toBeLessThan(60_000);
    });

    it("rejects a second cohort with the same number as a conflict, and keeps the first", async () => {
      const api = await adminApi();
      const first = await newCohort(api);
      await expect(api.createCohort({ cohortNumber: first.cohortNumber, proIds: newProIds(1) })).rejects.toMatchObject({
        code: "CONFLICT",
        kind: "CONFLICT",
      });
      const same = (await api.listCohorts()).filter((c) => c.cohortNumber === first.cohortNumber);
      expect(same).toEqual([first]);
    });

    it("accepts 1 and 500 pros and cohort numbers up to the integer limit", async () => {
      const api = await adminApi();
      expect((await newCohort(api, newProIds(1))).proIds).toHaveLength(1);
      expect((await newCohort(api, newProIds(500))).proIds).toHaveLength(500);
      const top = await api.createCohort({ cohortNumber: 2_147_483_647, proIds: newProIds(1) });
      expect(top.cohortNumber).toBe(2_147_483_647);
    });

    it("rejects an empty, over-long, blank or repeating proIds list, naming the entry at fault", async () => {
      const api = await adminApi();
      const create = (proIds: string[]) => api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds });
      await expectValidationError(create([]), "proIds");
      await expectValidationError(create(newProIds(501)), "proIds");
      await expectValidationError(create(["ok", ""]), "proIds.1");
      await expectValidationError(create(["   "]), "proIds.0");
      await expectValidationError(create(["same", "other", "same"]), "proIds");
    });

    it("rejects a cohort number that is not a positive integer", async () => {
      const api = await adminApi();
      for (const cohortNumber of [0, -1, 1.5, 2_147_483_648]) {
        await expectValidationError(api.createCohort({ cohortNumber, proIds: newProIds(1) }), "cohortNumber");
      }
    });

    it("stores nothing for a rejected input", async () => {
      const api = await adminApi();
      const cohortNumber = uniqueCohortNumber();
      await expectValidationError(api.createCohort({ cohortNumber, proIds: [] }), "proIds");
      expect((await api.listCohorts()).some((c) => c.cohortNumber === cohortNumber)).toBe(false);
    });
  });

  describe("listCohorts", () => {
    it("lists every cohort ordered by cohort number", async () => {
      const api = await adminApi();
      const made = [await newCohort(api), await newCohort(api), await newCohort(api)];
      const list = await api.listCohorts();
      const numbers = list.map((c) => c.cohortNumber);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      for (const cohort of made) expect(list).toContainEqual(cohort);
    });
  });

  describe("rollbackCohort", () => {
    it("rolls an active cohort back with a reason and clears every pro", async () => {
      const api = await adminApi();
      const proIds = newProIds(4);
      const cohort = await activeCohort(api, proIds);
      const rolled = await api.rollbackCohort({ id: cohort.id, reason: "complaints spiked" });
      expect(rolled).toMatchObject({
        id: cohort.id,
        status: "rolled_back",
        rollbackReason: "complaints spiked",
        activatedAt: cohort.activatedAt,
      });
      expect(rolled.rollbackAt).toBeInstanceOf(Date);
      await expectProStatuses(api, proIds, false, cohort.id);
    });

    it("stores a null reason when none is given", async () => {
      const api = await adminApi();
      const cohort = await activeCohort(api);
      expect(await api.rollbackCohort({ id: cohort.id })).toMatchObject({ status: "rolled_back", rollbackReason: null });
    });

    it("accepts a reason of 500 characters and rejects 501", async () => {
      const api = await adminApi();
      const cohort = await activeCohort(api);
      await expectValidationError(api.rollbackCohort({ id: cohort.id, reason: "x".repeat(501) }), "reason");
      expect((await api.listCohorts()).find((c) => c.id === cohort.id)?.status).toBe("active");
      const reason = "y".repeat(500);
      expect((await api.rollbackCohort({ id: cohort.id, reason })).rollbackReason).toBe(reason);
    });

    it("rolls back a pending cohort too, writing every pro's status", async () => {
      const api = await adminApi();
      const proIds = newProIds(2);
      const cohort = await newCohort(api, proIds);
      const rolled = await api.rollbackCohort({ id: cohort.id, reason: "never mind" });
      expect(rolled).toMatchObject({ status: "rolled_back", activatedAt: null, rollbackReason: "never mind" });
      expect(rolled.rollbackAt).toBeInstanceOf(Date);
      await expectProStatuses(api, proIds, false, cohort.id);
    });

    it("allows activating again after a rollback", async () => {
      const api = await adminApi();
      const proIds = newProIds(2);
      const cohort = await activeCohort(api, proIds);
      await api.rollbackCohort({ id: cohort.id, reason: "pause" });
      expect((await api.activateCohort({ id: cohort.id })).status).toBe("active");
      await expectProStatuses(api, proIds, true, cohort.id);
    });
  });

  it("tags a pro listed in two cohorts with the cohort activated or rolled back last", async () => {
    const api = await adminApi();
    const [onlyA, shared, onlyB] = newProIds(3) as [string, string, string];
    const a = await newCohort(api, [onlyA, shared]);
    const b = await newCohort(api, [shared, onlyB]);
    await api.checkGates({ id: a.id, ...PASSING_GATES });
    await api.checkGates({ id: b.id, ...PASSING_GATES });

    await api.activateCohort({ id: a.id });
    expect(await api.getPro({ proId: shared })).toMatchObject({ restrictionActive: true, cohortId: a.id });
    await api.activateCohort({ id: b.id });
    expect(await api.getPro({ proId: shared })).toMatchObject({ restrictionActive: true, cohortId: b.id });
    await api.rollbackCohort({ id: a.id });
    expect(await api.getPro({ proId: shared })).toMatchObject({ restrictionActive: false, cohortId: a.id });
    expect(await api.getPro({ proId: onlyA })).toMatchObject({ restrictionActive: false, cohortId: a.id });
    expect(await api.getPro({ proId: onlyB })).toMatchObject({ restrictionActive: true, cohortId: b.id });
  });

  describe("unknown cohorts", () => {
    const ops = {
      checkGates: (api: Api, id: string) => api.checkGates({ id, ...PASSING_GATES }),
      activateCohort: (api: Api, id: string) => api.activateCohort({ id }),
      rollbackCohort: (api: Api, id: string) => api.rollbackCohort({ id, reason: "x" }),
    };
    for (const [name, op] of Object.entries(ops)) {
      it(`${name}: a well-formed but unknown id and a non-UUID id are not found`, async () => {
        const api = await adminApi();
        for (const id of [randomUUID(), "not-a-uuid", "123", "00000000-0000-0000-0000-00000000000g"]) {
          await expect(op(api, id)).rejects.toMatchObject({
            code: "NOT_FOUND",
            kind: "NOT_FOUND",
            message: `Cohort ${id} not found`,
          });
        }
      });
    }
  });
});
