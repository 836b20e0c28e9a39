// The restriction procedures through createCaller against a real, migrated database: the rules, limits,
// conflicts, messages and ordering of docs/api.md#restriction-administration.
import { randomBytes, randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gateChecks, pros } from "../../db/schema/index.js";
import { appRouter } from "../../server/routers/index.js";
import { useTestApp, uniqueCohortNumber, type TestApp } from "../helpers/app.js";

type Api = ReturnType<TestApp["caller"]>["restriction"];

const PASSING = { responseRate: 0.6, comparisonsDone: 50, legalSignoff: true } as const;
const NO_CHECK = "Activation blocked: no gate check has been run for this cohort. Run check-gates first.";

/** n pro ids no other test uses, in the order the database sorts them. */
const newProIds = (n: number) => {
  const prefix = `pro-${randomBytes(6).toString("hex")}`;
  return Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, "0")}`);
};

describe("restriction procedures (createCaller)", () => {
  const t = useTestApp();

  /** The restriction procedures as a new platform admin. */
  async function adminApi(): Promise<Api> {
    return t().caller(await t().signUp({ admin: true })).restriction;
  }

  async function registerPros(ids: string[]): Promise<void> {
    await t().db.db.insert(pros).values(ids.map((id) => ({ id, name: `Pro ${id}` })));
  }

  const newCohort = (api: Api, proIds: string[] = newProIds(2)) =>
    api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds });

  /** A cohort whose latest gate check passed, activated. */
  async function activeCohort(api: Api, proIds: string[] = newProIds(2)) {
    const cohort = await newCohort(api, proIds);
    await api.checkGates({ id: cohort.id, ...PASSING });
    return api.activateCohort({ id: cohort.id });
  }

  const statuses = (api: Api, proIds: string[]) => Promise.all(proIds.map((proId) => api.getPro({ proId })));

  async function expectStatuses(api: Api, proIds: string[], restrictionActive: boolean, cohortId: string | null) {
    for (const status of await statuses(api, proIds)) {
      expect(status).toMatchObject({ restrictionActive, cohortId });
      expect("updatedAt" in status && status.updatedAt).toBeInstanceOf(Date);
    }
  }

  const expectInvalid = (promise: Promise<unknown>, field: string) =>
    expect(promise).rejects.toMatchObject({
      code: "BAD_REQUEST",
      kind: "VALIDATION_ERROR",
      details: expect.arrayContaining([expect.objectContaining({ field })]),
    });

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

    it("rejects a bad proIds list", async () => {
      const api = await adminApi();
      const create = (proIds: string[]) => api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds });
      await expectInvalid(create([]), "proIds");
      await expectInvalid(create(newProIds(501)), "proIds");
      await expectInvalid(create(["ok", ""]), "proIds.1");
      await expectInvalid(create(["   "]), "proIds.0");
      await expectInvalid(create(["same", "other", "same"]), "proIds");
    });

    it("rejects a cohort number that is not a positive integer", async () => {
      const api = await adminApi();
      for (const cohortNumber of [0, -1, 1.5, 2_147_483_648]) {
        await expectInvalid(api.createCohort({ cohortNumber, proIds: newProIds(1) }), "cohortNumber");
      }
    });

    it("stores nothing for a rejected input", async () => {
      const api = await adminApi();
      const cohortNumber = uniqueCohortNumber();
      await expectInvalid(api.createCohort({ cohortNumber, proIds: [] }), "proIds");
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

  describe("checkGates", () => {
    it("records the inputs, a live communication log and the evaluation", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      const check = await api.checkGates({ id: cohort.id, responseRate: 0.75, comparisonsDone: 120, legalSignoff: true });
      expect(check).toMatchObject({
        cohortId: cohort.id,
        responseRate: 0.75,
        comparisonsDone: 120,
        logLive: true,
        legalSignoff: true,
        allGatesMet: true,
        blockedBy: null,
      });
      expect(check.checkedAt).toBeInstanceOf(Date);
    });

    it("stores absent inputs as null and false, and lists every failure", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      expect(await api.checkGates({ id: cohort.id })).toMatchObject({
        responseRate: null,
        comparisonsDone: null,
        logLive: true,
        legalSignoff: false,
        allGatesMet: false,
        blockedBy: "response_rate 0 < 0.6; comparisons_done 0 < 50; legal_signoff missing",
      });
    });

    it("fails at the boundaries just below the thresholds", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      const check = await api.checkGates({ id: cohort.id, responseRate: 0.59, comparisonsDone: 49, legalSignoff: true });
      expect(check).toMatchObject({ allGatesMet: false, blockedBy: "response_rate 0.59 < 0.6; comparisons_done 49 < 50" });
      expect(await api.checkGates({ id: cohort.id, responseRate: 0.1 + 0.2, comparisonsDone: 50, legalSignoff: true })).toMatchObject({
        responseRate: 0.30000000000000004,
        blockedBy: "response_rate 0.30000000000000004 < 0.6",
      });
    });

    it("stores a new record on every call", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      const first = await api.checkGates({ id: cohort.id });
      const second = await api.checkGates({ id: cohort.id, ...PASSING });
      expect(second.id).not.toBe(first.id);
      const rows = await t().db.db.select().from(gateChecks).where(eq(gateChecks.cohortId, cohort.id));
      expect(rows.map((r) => r.id).sort()).toEqual([first.id, second.id].sort());
    });

    it("records logLive false, and its gate entry, while communication_logs cannot be read", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      await t().db.db.execute(sql`alter table communication_logs rename to communication_logs_off`);
      try {
        expect(await api.checkGates({ id: cohort.id, ...PASSING })).toMatchObject({
          logLive: false,
          allGatesMet: false,
          blockedBy: "communication_logs not live",
        });
      } finally {
        await t().db.db.execute(sql`alter table communication_logs_off rename to communication_logs`);
      }
      expect(await api.checkGates({ id: cohort.id, ...PASSING })).toMatchObject({ logLive: true, allGatesMet: true });
    });

    it("rejects out-of-range inputs", async () => {
      const api = await adminApi();
      const { id } = await newCohort(api);
      await expectInvalid(api.checkGates({ id, responseRate: 1.01 }), "responseRate");
      await expectInvalid(api.checkGates({ id, responseRate: -0.01 }), "responseRate");
      await expectInvalid(api.checkGates({ id, comparisonsDone: -1 }), "comparisonsDone");
      await expectInvalid(api.checkGates({ id, comparisonsDone: 2.5 }), "comparisonsDone");
      expect(await api.checkGates({ id, responseRate: 1, comparisonsDone: 0 })).toMatchObject({
        responseRate: 1,
        comparisonsDone: 0,
      });
    });
  });

  describe("activateCohort", () => {
    it("is blocked when no gate check was run", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      await expect(api.activateCohort({ id: cohort.id })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        kind: "VALIDATION_ERROR",
        message: NO_CHECK,
      });
    });

    it("is blocked by the unmet gates of the latest check, and changes nothing", async () => {
      const api = await adminApi();
      const proIds = newProIds(2);
      const cohort = await newCohort(api, proIds);
      await api.checkGates({ id: cohort.id, responseRate: 0.5, comparisonsDone: 0 });
      await expect(api.activateCohort({ id: cohort.id })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "Activation blocked by unmet gates: response_rate 0.5 < 0.6; comparisons_done 0 < 50; legal_signoff missing",
      });
      expect((await api.listCohorts()).find((c) => c.id === cohort.id)).toEqual(cohort);
      expect(await statuses(api, proIds)).toEqual(
        proIds.map((proId) => ({ proId, restrictionActive: false })),
      );
    });

    it("uses the latest check only: an older pass does not outweigh a newer failure", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      await api.checkGates({ id: cohort.id, ...PASSING });
      await api.checkGates({ id: cohort.id, ...PASSING, legalSignoff: false });
      await expect(api.activateCohort({ id: cohort.id })).rejects.toMatchObject({
        message: "Activation blocked by unmet gates: legal_signoff missing",
      });
      await api.checkGates({ id: cohort.id, ...PASSING });
      expect((await api.activateCohort({ id: cohort.id })).status).toBe("active");
    });

    it("needs a passing check of its own cohort", async () => {
      const api = await adminApi();
      const a = await newCohort(api);
      const b = await newCohort(api);
      await api.checkGates({ id: a.id, ...PASSING });
      await expect(api.activateCohort({ id: b.id })).rejects.toMatchObject({ message: NO_CHECK });
      await api.checkGates({ id: b.id, comparisonsDone: 10 });
      await expect(api.activateCohort({ id: b.id })).rejects.toMatchObject({
        message: "Activation blocked by unmet gates: response_rate 0 < 0.6; comparisons_done 10 < 50; legal_signoff missing",
      });
      expect((await api.activateCohort({ id: a.id })).status).toBe("active");
    });

    it("activates the cohort and flags every listed pro, tagged with the cohort", async () => {
      const api = await adminApi();
      const proIds = newProIds(5);
      const cohort = await newCohort(api, proIds);
      await api.checkGates({ id: cohort.id, ...PASSING });
      const before = Date.now();
      const active = await api.activateCohort({ id: cohort.id });
      expect(active).toMatchObject({ id: cohort.id, status: "active", rollbackAt: null, rollbackReason: null });
      expect(active.activatedAt).toBeInstanceOf(Date);
      expect(Math.abs(active.activatedAt!.getTime() - before)).toBeLessThan(60_000);
      expect((await api.listCohorts()).find((c) => c.id === cohort.id)).toEqual(active);
      await expectStatuses(api, proIds, true, cohort.id);
    });

    it("does not need the listed pros to be registered (rule 9)", async () => {
      const api = await adminApi();
      const proIds = newProIds(3);
      const cohort = await activeCohort(api, proIds);
      const registered = await t().db.db.select().from(pros).where(eq(pros.id, proIds[0]!));
      expect(registered).toEqual([]);
      await expectStatuses(api, proIds, true, cohort.id);
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
      await expectStatuses(api, proIds, false, cohort.id);
    });

    it("stores a null reason when none is given", async () => {
      const api = await adminApi();
      const cohort = await activeCohort(api);
      expect(await api.rollbackCohort({ id: cohort.id })).toMatchObject({ status: "rolled_back", rollbackReason: null });
    });

    it("accepts a reason of 500 characters and rejects 501", async () => {
      const api = await adminApi();
      const cohort = await activeCohort(api);
      await expectInvalid(api.rollbackCohort({ id: cohort.id, reason: "x".repeat(501) }), "reason");
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
      await expectStatuses(api, proIds, false, cohort.id);
    });

    it("allows activating again after a rollback", async () => {
      const api = await adminApi();
      const proIds = newProIds(2);
      const cohort = await activeCohort(api, proIds);
      await api.rollbackCohort({ id: cohort.id, reason: "pause" });
      expect((await api.activateCohort({ id: cohort.id })).status).toBe("active");
      await expectStatuses(api, proIds, true, cohort.id);
    });
  });

  it("tags a pro listed in two cohorts with the cohort activated or rolled back last", async () => {
    const api = await adminApi();
    const [onlyA, shared, onlyB] = newProIds(3) as [string, string, string];
    const a = await newCohort(api, [onlyA, shared]);
    const b = await newCohort(api, [shared, onlyB]);
    await api.checkGates({ id: a.id, ...PASSING });
    await api.checkGates({ id: b.id, ...PASSING });

    await api.activateCohort({ id: a.id });
    expect(await api.getPro({ proId: shared })).toMatchObject({ restrictionActive: true, cohortId: a.id });
    await api.activateCohort({ id: b.id });
    expect(await api.getPro({ proId: shared })).toMatchObject({ restrictionActive: true, cohortId: b.id });
    await api.rollbackCohort({ id: a.id });
    expect(await api.getPro({ proId: shared })).toMatchObject({ restrictionActive: false, cohortId: a.id });
    expect(await api.getPro({ proId: onlyA })).toMatchObject({ restrictionActive: false, cohortId: a.id });
    expect(await api.getPro({ proId: onlyB })).toMatchObject({ restrictionActive: true, cohortId: b.id });
  });

  describe("unknown cohorts (rule 1)", () => {
    const ops = {
      checkGates: (api: Api, id: string) => api.checkGates({ id, ...PASSING }),
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

  describe("per-pro flags", () => {
    it("reads an unknown pro as inactive with no record", async () => {
      const api = await adminApi();
      const [proId] = newProIds(1) as [string];
      expect(await api.getPro({ proId })).toStrictEqual({ proId, restrictionActive: false });
    });

    it("switches a registered pro on and off with no cohort and no gate", async () => {
      const api = await adminApi();
      const [proId] = newProIds(1) as [string];
      await registerPros([proId]);
      const on = await api.activatePro({ proId });
      expect(on).toMatchObject({ proId, restrictionActive: true, cohortId: null });
      expect(on.updatedAt).toBeInstanceOf(Date);
      expect(await api.getPro({ proId })).toEqual(on);
      const off = await api.rollbackPro({ proId });
      expect(off).toMatchObject({ proId, restrictionActive: false, cohortId: null });
      expect(await api.getPro({ proId })).toEqual(off);
    });

    it("clears the cohort tag when a cohort's pro is switched per pro", async () => {
      const api = await adminApi();
      const proIds = newProIds(2);
      await registerPros(proIds);
      const cohort = await activeCohort(api, proIds);
      expect(await api.rollbackPro({ proId: proIds[0]! })).toMatchObject({ restrictionActive: false, cohortId: null });
      expect(await api.activatePro({ proId: proIds[0]! })).toMatchObject({ restrictionActive: true, cohortId: null });
      expect(await api.getPro({ proId: proIds[1]! })).toMatchObject({ restrictionActive: true, cohortId: cohort.id });
    });

    it("requires the pro to be registered (rule 8), and then writes nothing", async () => {
      const api = await adminApi();
      const [proId] = newProIds(1) as [string];
      for (const op of [api.activatePro, api.rollbackPro]) {
        await expect(op({ proId })).rejects.toMatchObject({ code: "NOT_FOUND", message: `Pro ${proId} not found` });
      }
      expect(await api.getPro({ proId })).toStrictEqual({ proId, restrictionActive: false });
    });

    it("rejects a blank pro id", async () => {
      const api = await adminApi();
      await expectInvalid(api.getPro({ proId: " " }), "proId");
      await expectInvalid(api.activatePro({ proId: "" }), "proId");
    });

    it("lists only the active pros, ordered by pro id", async () => {
      const api = await adminApi();
      const proIds = newProIds(6);
      await registerPros(proIds);
      // Switched on in an order that is not the sorted one; two are switched off again.
      for (const proId of [...proIds].reverse()) await api.activatePro({ proId });
      await api.rollbackPro({ proId: proIds[1]! });
      await api.rollbackPro({ proId: proIds[4]! });
      const list = await api.listActive();
      expect(list.every((s) => s.restrictionActive)).toBe(true);
      const listedIds = list.map((s) => s.proId);
      expect(listedIds).toEqual([...listedIds].sort());
      expect(list.filter((s) => proIds.includes(s.proId)).map((s) => s.proId)).toEqual([
        proIds[0],
        proIds[2],
        proIds[3],
        proIds[5],
      ]);
    });

    it("lists a cohort's pros after activation and drops them after rollback", async () => {
      const api = await adminApi();
      const proIds = newProIds(3);
      const cohort = await activeCohort(api, proIds);
      const mine = async () => (await api.listActive()).filter((s) => proIds.includes(s.proId));
      expect((await mine()).map((s) => [s.proId, s.cohortId])).toEqual(proIds.map((p) => [p, cohort.id]));
      await api.rollbackCohort({ id: cohort.id });
      expect(await mine()).toEqual([]);
    });
  });

  describe("authorization", () => {
    /** Every procedure with an input that would succeed for an admin. */
    const everyProcedure = (api: Api, cohortId: string, proId: string) => ({
      createCohort: () => api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) }),
      listCohorts: () => api.listCohorts(),
      checkGates: () => api.checkGates({ id: cohortId, ...PASSING }),
      activateCohort: () => api.activateCohort({ id: cohortId }),
      rollbackCohort: () => api.rollbackCohort({ id: cohortId }),
      listActive: () => api.listActive(),
      getPro: () => api.getPro({ proId }),
      activatePro: () => api.activatePro({ proId }),
      rollbackPro: () => api.rollbackPro({ proId }),
    });

    async function target() {
      const admin = await adminApi();
      const [proId] = newProIds(1) as [string];
      await registerPros([proId]);
      const cohort = await newCohort(admin, [proId]);
      await admin.checkGates({ id: cohort.id, ...PASSING });
      return { admin, cohortId: cohort.id, proId };
    }

    it("covers every procedure of the router", async () => {
      const procedures = Object.keys(appRouter._def.procedures)
        .filter((path) => path.startsWith("restriction."))
        .map((path) => path.slice("restriction.".length));
      expect(Object.keys(everyProcedure(t().caller(null).restriction, "", "")).sort()).toEqual(procedures.sort());
    });

    it("rejects an anonymous caller on every procedure, before validating or touching anything", async () => {
      const { admin, cohortId, proId } = await target();
      const anonymous = t().caller(null).restriction;
      for (const [name, call] of Object.entries(everyProcedure(anonymous, cohortId, proId))) {
        await expect(call(), name).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      }
      await expect(anonymous.activateCohort({ id: "not-a-uuid" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      await expect(anonymous.createCohort({ cohortNumber: -1, proIds: [] })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      expect((await admin.listCohorts()).find((c) => c.id === cohortId)?.status).toBe("pending");
      expect(await admin.getPro({ proId })).toStrictEqual({ proId, restrictionActive: false });
    });

    it("forbids a signed-in user who is not a platform admin on every procedure", async () => {
      const { admin, cohortId, proId } = await target();
      const user = await t().signUp();
      expect(user.role).not.toBe("admin");
      const api = t().caller(user).restriction;
      for (const [name, call] of Object.entries(everyProcedure(api, cohortId, proId))) {
        await expect(call(), name).rejects.toMatchObject({ code: "FORBIDDEN", kind: "FORBIDDEN" });
      }
      expect((await admin.listCohorts()).find((c) => c.id === cohortId)?.status).toBe("pending");
      expect(await admin.getPro({ proId })).toStrictEqual({ proId, restrictionActive: false });
    });

    it("lets a platform admin call every procedure", async () => {
      const { admin, cohortId, proId } = await target();
      for (const [name, call] of Object.entries(everyProcedure(admin, cohortId, proId))) {
        await expect(call(), name).resolves.toBeDefined();
      }
    });
  });
});
