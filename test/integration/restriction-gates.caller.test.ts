// Gate checks and cohort activation through the procedures (createCaller) against a real, migrated
// database: what a check records, where each threshold lies, and that only the latest check of the cohort
// itself decides whether it may be activated.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { gateChecks, pros } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";
import { expectProStatuses, expectValidationError, proStatuses } from "../helpers/caller-expect.js";
import {
  activeCohort,
  adminRestrictionApi,
  EMPTY_CHECK_RECORD,
  FAILING_GATES,
  FAILING_GATES_BLOCKED_BY,
  NO_CHECK,
  newCohort,
  newProIds,
  PASSING_GATES,
} from "../helpers/fixtures.js";

describe("restriction gates (createCaller)", () => {
  const t = useTestApp();
  const adminApi = () => adminRestrictionApi(t());

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
      expect(await api.checkGates({ id: cohort.id })).toMatchObject(EMPTY_CHECK_RECORD);
    });

    it("fails just below each threshold, and reports a float sum as stored", async () => {
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
      const second = await api.checkGates({ id: cohort.id, ...PASSING_GATES });
      expect(second.id).not.toBe(first.id);
      const rows = await t().db.db.select().from(gateChecks).where(eq(gateChecks.cohortId, cohort.id));
      expect(rows.map((r) => r.id).sort()).toEqual([first.id, second.id].sort());
    });

    it("records logLive false, and its gate entry, while communication_logs cannot be read", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      await t().db.db.execute(sql`alter table communication_logs rename to communication_logs_off`);
      try {
        expect(await api.checkGates({ id: cohort.id, ...PASSING_GATES })).toMatchObject({
          logLive: false,
          allGatesMet: false,
          blockedBy: "communication_logs not live",
        });
      } finally {
        await t().db.db.execute(sql`alter table communication_logs_off rename to communication_logs`);
      }
      expect(await api.checkGates({ id: cohort.id, ...PASSING_GATES })).toMatchObject({ logLive: true, allGatesMet: true });
    });

    it("rejects a rate outside 0..1 and a negative or fractional comparison count, and accepts the bounds", async () => {
      const api = await adminApi();
      const { id } = await newCohort(api);
      await expectValidationError(api.checkGates({ id, responseRate: 1.01 }), "responseRate");
      await expectValidationError(api.checkGates({ id, responseRate: -0.01 }), "responseRate");
      await expectValidationError(api.checkGates({ id, comparisonsDone: -1 }), "comparisonsDone");
      await expectValidationError(api.checkGates({ id, comparisonsDone: 2.5 }), "comparisonsDone");
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
      await api.checkGates({ id: cohort.id, ...FAILING_GATES, comparisonsDone: 0 });
      await expect(api.activateCohort({ id: cohort.id })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: `Activation blocked by unmet gates: ${FAILING_GATES_BLOCKED_BY}`,
      });
      expect((await api.listCohorts()).find((c) => c.id === cohort.id)).toEqual(cohort);
      expect(await proStatuses(api, proIds)).toEqual(proIds.map((proId) => ({ proId, restrictionActive: false })));
    });

    it("uses the latest check only: an older pass does not outweigh a newer failure", async () => {
      const api = await adminApi();
      const cohort = await newCohort(api);
      await api.checkGates({ id: cohort.id, ...PASSING_GATES });
      await api.checkGates({ id: cohort.id, ...PASSING_GATES, legalSignoff: false });
      await expect(api.activateCohort({ id: cohort.id })).rejects.toMatchObject({
        message: "Activation blocked by unmet gates: legal_signoff missing",
      });
      await api.checkGates({ id: cohort.id, ...PASSING_GATES });
      expect((await api.activateCohort({ id: cohort.id })).status).toBe("active");
    });

    it("needs a passing check of its own cohort", async () => {
      const api = await adminApi();
      const a = await newCohort(api);
      const b = await newCohort(api);
      await api.checkGates({ id: a.id, ...PASSING_GATES });
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
      await api.checkGates({ id: cohort.id, ...PASSING_GATES });
      const before = Date.now();
      const active = await api.activateCohort({ id: cohort.id });
      expect(active).toMatchObject({ id: cohort.id, status: "active", rollbackAt: null, rollbackReason: null });
      expect(active.activatedAt).toBeInstanceOf(Date);
      expect(Math.abs(active.activatedAt!.getTime() - before)).toBeLessThan(60_000);
      expect((await api.listCohorts()).find((c) => c.id === cohort.id)).toEqual(active);
      await expectProStatuses(api, proIds, true, cohort.id);
    });

    it("does not need the listed pros to be registered (docs/api.md#activation-and-rollback)", async () => {
      const api = await adminApi();
      const proIds = newProIds(3);
      const cohort = await activeCohort(api, proIds);
      const registered = await t().db.db.select().from(pros).where(eq(pros.id, proIds[0]!));
      expect(registered).toEqual([]);
      await expectProStatuses(api, proIds, true, cohort.id);
    });
  });
});
