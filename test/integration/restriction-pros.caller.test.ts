// Per-pro restriction flags through the procedures (createCaller): reading, switching and listing them,
// how they meet cohort tags, and who may call the restriction procedures at all.
import { describe, expect, it } from "vitest";
import { appRouter } from "../../server/routers/index.js";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { expectValidationError } from "../helpers/caller-expect.js";
import { insertChangeRequest, OTHER_ADMIN } from "../helpers/change-requests.js";
import {
  type RestrictionApi as Api,
  activeCohort,
  adminRestrictionApi,
  newCohort,
  newProIds,
  PASSING_GATES,
  passedCohort,
  registerPros,
} from "../helpers/fixtures.js";

describe("restriction per-pro flags and who may call (createCaller)", () => {
  const t = useTestApp();
  const adminApi = () => adminRestrictionApi(t());

  describe("per-pro flags", () => {
    it("reads an unknown pro as inactive with no record", async () => {
      const api = await adminApi();
      const [proId] = newProIds(1) as [string];
      expect(await api.getPro({ proId })).toStrictEqual({ proId, restrictionActive: false });
    });

    it("switches a registered pro on and off with no cohort and no gate", async () => {
      const api = await adminApi();
      const [proId] = newProIds(1) as [string];
      await registerPros(t().db.db, [proId]);
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
      await registerPros(t().db.db, proIds);
      const cohort = await activeCohort(api, proIds);
      expect(await api.rollbackPro({ proId: proIds[0]! })).toMatchObject({ restrictionActive: false, cohortId: null });
      expect(await api.activatePro({ proId: proIds[0]! })).toMatchObject({ restrictionActive: true, cohortId: null });
      expect(await api.getPro({ proId: proIds[1]! })).toMatchObject({ restrictionActive: true, cohortId: cohort.id });
    });

    it("requires the pro to be registered (docs/api.md#pro-status), and then writes nothing", async () => {
      const api = await adminApi();
      const [proId] = newProIds(1) as [string];
      for (const op of [api.activatePro, api.rollbackPro]) {
        await expect(op({ proId })).rejects.toMatchObject({ code: "NOT_FOUND", message: `Pro ${proId} not found` });
      }
      expect(await api.getPro({ proId })).toStrictEqual({ proId, restrictionActive: false });
    });

    it("rejects a blank pro id", async () => {
      const api = await adminApi();
      await expectValidationError(api.getPro({ proId: " " }), "proId");
      await expectValidationError(api.activatePro({ proId: "" }), "proId");
    });

    it("lists only the active pros, ordered by pro id", async () => {
      const api = await adminApi();
      const proIds = newProIds(6);
      await registerPros(t().db.db, proIds);
      // Switched on in an order that is not the sorted one; two are switched off again.
      for (const proId of [...proIds].reverse()) await api.activatePro({ proId });
      await api.rollbackPro({ proId: proIds[1]! });
      await api.rollbackPro({ proId: proIds[4]! });
      const list = await api.listActive();
      expect(list.every((s) => s.restrictionActive)).toBe(true);
      const listedIds = list.map((s) => s.proId);
      expect(listedIds).toEqual([...listedIds].sort());
      expect(list.filter((s) => proIds.includes(s.proId)).map((s) => s.proId)).toEqual([proIds[0], proIds[2], proIds[3], proIds[5]]);
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

  describe("who may call: platform admins only", () => {
    /**
     * Every procedure with an input that would succeed for an admin; `requests` are pending change requests
     * of other cohorts, asked by another admin (approve, reject, read) and by the caller (cancel).
     */
    const everyProcedure = (api: Api, cohortId: string, proId: string, requests = { approve: "", reject: "", cancel: "" }) => ({
      createCohort: () => api.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) }),
      listCohorts: () => api.listCohorts(),
      checkGates: () => api.checkGates({ id: cohortId, ...PASSING_GATES }),
      listGateChecks: () => api.listGateChecks({ id: cohortId }),
      previewCohort: () => api.previewCohort({ id: cohortId, action: "activate" }),
      previewNewCohort: () => api.previewNewCohort({ cohortNumber: uniqueCohortNumber(), proIds: newProIds(1) }),
      cohortCoverage: () => api.cohortCoverage({ id: cohortId }),
      activateCohort: () => api.activateCohort({ id: cohortId }),
      rollbackCohort: () => api.rollbackCohort({ id: cohortId }),
      listActive: () => api.listActive(),
      getPro: () => api.getPro({ proId }),
      activatePro: () => api.activatePro({ proId }),
      rollbackPro: () => api.rollbackPro({ proId }),
      proHistory: () => api.proHistory({ proId }),
      createChangeRequest: () => api.createChangeRequest({ id: cohortId, action: "rollback" }),
      createProChangeRequest: () => api.createProChangeRequest({ proId, action: "activate" }),
      listChangeRequests: () => api.listChangeRequests({}),
      getChangeRequest: () => api.getChangeRequest({ id: requests.approve }),
      approveChangeRequest: () => api.approveChangeRequest({ id: requests.approve }),
      rejectChangeRequest: () => api.rejectChangeRequest({ id: requests.reject, comment: "no" }),
      cancelChangeRequest: () => api.cancelChangeRequest({ id: requests.cancel }),
    });

    async function target() {
      const admin = await adminApi();
      const [proId] = newProIds(1) as [string];
      await registerPros(t().db.db, [proId]);
      const cohort = await newCohort(admin, [proId]);
      await admin.checkGates({ id: cohort.id, ...PASSING_GATES });
      return { admin, cohortId: cohort.id, proId };
    }

    it("has a call for every restriction procedure of the router", async () => {
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
      const me = await t().signUp({ admin: true });
      const api = t().caller(me).restriction;
      const requestOf = async (requestedBy: { id: string; email: string }) =>
        insertChangeRequest(t().db.db, { cohortId: (await passedCohort(admin, newProIds(1))).id, action: "activate", requestedBy });
      const requests = { approve: await requestOf(OTHER_ADMIN), reject: await requestOf(OTHER_ADMIN), cancel: await requestOf(me) };
      for (const [name, call] of Object.entries(everyProcedure(api, cohortId, proId, requests))) {
        await expect(call(), name).resolves.toBeDefined();
      }
    });
  });
});
