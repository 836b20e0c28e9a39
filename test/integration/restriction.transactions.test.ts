// Cohort activate and rollback as transactions: a constant number of statements whatever the cohort
// size, all-or-nothing when a statement fails part-way, and a consistent end state under concurrency.
import { randomBytes } from "node:crypto";
import { asc, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { proFlagChanges, proRestrictionStatus, restrictionCohorts } from "../../db/schema/index.js";
import { useTestApp } from "../helpers/app.js";
import { COUNT_WAITING_HERE } from "../helpers/db.js";
import { type RestrictionApi as Api, adminRestrictionApi, newProIds, passedCohort } from "../helpers/fixtures.js";

describe("restriction transactions", () => {
  const t = useTestApp();

  const adminApi = () => adminRestrictionApi(t());

  /** A pending cohort of n new pros whose latest gate check passed. */
  async function readyCohort(api: Api, n: number) {
    const proIds = newProIds(n);
    const cohort = await passedCohort(api, proIds);
    return { cohort, proIds };
  }

  /** The statements Drizzle sends while `run` runs (BEGIN/COMMIT are not logged). */
  async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
    const { queries } = t().db;
    queries.length = 0;
    await run();
    return [...queries];
  }

  /** The stored status rows of these pros, by pro id. */
  async function storedStatuses(proIds: string[]) {
    const rows = await t()
      .db.db.select()
      .from(proRestrictionStatus)
      .where(inArray(proRestrictionStatus.proId, proIds))
      .orderBy(proRestrictionStatus.proId);
    return rows;
  }

  async function storedCohort(id: string) {
    const [row] = await t().db.db.select().from(restrictionCohorts).where(eq(restrictionCohorts.id, id));
    return row!;
  }

  /**
   * Runs `body` while a trigger on `table` raises for the rows `condition` selects (a SQL boolean over
   * NEW), then drops it. Names are unique so that nothing else in the database is affected.
   */
  async function withFailingTrigger(table: string, condition: string, body: () => Promise<void>) {
    const name = `fail_${randomBytes(5).toString("hex")}`;
    const exec = (text: string) => t().db.db.execute(sql.raw(text));
    await exec(
      `create function ${name}() returns trigger language plpgsql as $$
       begin
         if ${condition} then raise exception 'injected failure %', '${name}'; end if;
         return new;
       end $$`,
    );
    try {
      await exec(`create trigger ${name} before insert or update on ${table} for each row execute function ${name}()`);
      await body();
    } finally {
      await exec(`drop trigger if exists ${name} on ${table}`);
      await exec(`drop function if exists ${name}()`);
    }
  }

  describe("statement count", () => {
    type Op = (api: Api, id: string) => Promise<unknown>;
    const activate: Op = (api, id) => api.activateCohort({ id });
    const rollback: Op = (api, id) => api.rollbackCohort({ id, reason: "counted" });

    /**
     * Runs `op` on a 1-pro and on a 500-pro cohort (each first taken through `before`), expects the
     * same 2 statements for both (the cohort row locked; then one statement that locks the pros' statuses,
     * writes their flags with a history row each, updates the cohort and records the audit event), and
     * returns the large cohort's stored statuses.
     */
    async function expectConstantStatements(op: Op, before: Op[] = []) {
      const api = await adminApi();
      const small = await readyCohort(api, 1);
      const large = await readyCohort(api, 500);
      for (const step of before) for (const { cohort } of [small, large]) await step(api, cohort.id);
      const forSmall = await statementsOf(() => op(api, small.cohort.id));
      const forLarge = await statementsOf(() => op(api, large.cohort.id));
      expect(forSmall).toHaveLength(2);
      expect(forLarge).toHaveLength(2);
      // The history of every pro was written by those statements too, pointing at one audit event.
      const history = await t()
        .db.db.select()
        .from(proFlagChanges)
        .where(inArray(proFlagChanges.proId, large.proIds))
        .orderBy(asc(proFlagChanges.id));
      const latest = history.filter((h) => h.auditEventId === history.at(-1)!.auditEventId);
      expect(latest).toHaveLength(500);
      const statuses = await storedStatuses(large.proIds);
      // Every pro was written by those statements.
      expect(statuses).toHaveLength(500);
      expect(statuses.every((s) => s.cohortId === large.cohort.id)).toBe(true);
      return statuses;
    }

    it("activates a 500-pro cohort in the same 2 statements as a 1-pro cohort", async () => {
      const statuses = await expectConstantStatements(activate);
      expect(statuses.every((s) => s.restrictionActive)).toBe(true);
    });

    it("rolls back an active 500-pro cohort in the same 2 statements as a 1-pro cohort", async () => {
      const statuses = await expectConstantStatements(rollback, [activate]);
      expect(statuses.every((s) => !s.restrictionActive)).toBe(true);
    });

    it("rolls back a 500-pro cohort that was never activated in the same 2 statements", async () => {
      const statuses = await expectConstantStatements(rollback);
      expect(statuses.every((s) => !s.restrictionActive)).toBe(true);
    });
  });

  describe("atomicity", () => {
    /** Some pros start with a status (one on per pro, one off from elsewhere); the rest have none. */
    async function seedStatuses(proIds: string[]) {
      const earlier = new Date("2026-01-01T00:00:00.000Z");
      await t()
        .db.db.insert(proRestrictionStatus)
        .values([
          { proId: proIds[0]!, restrictionActive: true, cohortId: null, updatedAt: earlier },
          { proId: proIds[1]!, restrictionActive: false, cohortId: null, updatedAt: earlier },
        ]);
      return storedStatuses(proIds);
    }

    it("leaves every pro and the cohort unchanged when the cohort update fails after the pro upsert", async () => {
      const api = await adminApi();
      const { cohort, proIds } = await readyCohort(api, 50);
      const before = await seedStatuses(proIds);
      expect(before).toHaveLength(2);

      await withFailingTrigger("restriction_cohorts", `new.id = '${cohort.id}' and new.status = 'active'`, async () => {
        await expect(api.activateCohort({ id: cohort.id })).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR" });
      });
      expect(await storedStatuses(proIds)).toEqual(before);
      expect(await storedCohort(cohort.id)).toMatchObject({ status: "pending", activatedAt: null });

      const active = await api.activateCohort({ id: cohort.id });
      expect(active.status).toBe("active");
      const after = await storedStatuses(proIds);
      expect(after).toHaveLength(50);
      expect(after.every((s) => s.restrictionActive && s.cohortId === cohort.id)).toBe(true);
    });

    it("leaves the cohort pending and no pro changed when the pro upsert fails on its last pro", async () => {
      const api = await adminApi();
      const { cohort, proIds } = await readyCohort(api, 50);
      const before = await seedStatuses(proIds);
      const last = proIds[proIds.length - 1]!;

      await withFailingTrigger("pro_restriction_status", `new.pro_id = '${last}'`, async () => {
        await expect(api.activateCohort({ id: cohort.id })).rejects.toThrow();
      });
      expect(await storedStatuses(proIds)).toEqual(before);
      expect(await storedCohort(cohort.id)).toMatchObject({ status: "pending", activatedAt: null });
    });

    it("leaves an active cohort and its pros unchanged when a rollback fails part-way", async () => {
      const api = await adminApi();
      const { cohort, proIds } = await readyCohort(api, 50);
      await api.activateCohort({ id: cohort.id });
      const before = await storedStatuses(proIds);
      const activeCohort = await storedCohort(cohort.id);
      const last = proIds[proIds.length - 1]!;

      // The rollback updates the cohort first, then the pros: fail on the last pro.
      await withFailingTrigger("pro_restriction_status", `new.pro_id = '${last}' and not new.restriction_active`, async () => {
        await expect(api.rollbackCohort({ id: cohort.id, reason: "will fail" })).rejects.toThrow();
      });
      expect(await storedStatuses(proIds)).toEqual(before);
      expect(await storedCohort(cohort.id)).toEqual(activeCohort);
      expect(activeCohort).toMatchObject({ status: "active", rollbackAt: null, rollbackReason: null });

      expect(await api.rollbackCohort({ id: cohort.id, reason: "works" })).toMatchObject({
        status: "rolled_back",
        rollbackReason: "works",
      });
      expect((await storedStatuses(proIds)).every((s) => !s.restrictionActive && s.cohortId === cohort.id)).toBe(true);
    });
  });

  describe("concurrency", () => {
    /** Every pro's flag matches the cohort's status, and the cohort tags every pro. */
    async function expectConsistent(cohortId: string, proIds: string[]) {
      const { status } = await storedCohort(cohortId);
      expect(["active", "rolled_back"]).toContain(status);
      const statuses = await storedStatuses(proIds);
      expect(statuses).toHaveLength(proIds.length);
      for (const s of statuses) {
        expect(s).toMatchObject({ restrictionActive: status === "active", cohortId });
      }
    }

    it("keeps pros and cohort consistent under 20 parallel activations and rollbacks", async () => {
      const api = await adminApi();
      const { cohort, proIds } = await readyCohort(api, 100);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0 ? api.activateCohort({ id: cohort.id }) : api.rollbackCohort({ id: cohort.id, reason: `r${i}` }),
        ),
      );
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      await expectConsistent(cohort.id, proIds);
    });

    it("writes each pro's history as one chain under parallel activations and rollbacks: every change's previous is the flag before it", async () => {
      // The pros are new. The calls all queue for the cohort behind a transaction that holds it; then the
      // first to get it inserts their statuses, and each of the others must see those when its turn comes.
      const api = await adminApi();
      const { cohort, proIds } = await readyCohort(api, 40);
      const { db, kind } = t().db;
      let held!: () => void;
      const holding = new Promise<void>((resolve) => (held = resolve));
      let fired!: () => void;
      const firing = new Promise<void>((resolve) => (fired = resolve));
      const blocker = db.transaction(async (tx) => {
        await tx.select({ id: restrictionCohorts.id }).from(restrictionCohorts).where(eq(restrictionCohorts.id, cohort.id)).for("update");
        held();
        await firing;
        // On PostgreSQL, hold on until several calls wait for the lock (asked on this connection: the others
        // may all be taken by them). PGlite runs one transaction at a time: the calls wait for this one.
        const waiting = async () => {
          await tx.execute(sql`select pg_stat_clear_snapshot()`); // else this transaction keeps its first view
          const [row] = (await tx.execute(sql.raw(COUNT_WAITING_HERE))) as unknown as { n: number }[];
          return row!.n;
        };
        if (kind === "postgres") {
          for (let tries = 0; tries < 250 && (await waiting()) < 3; tries++) await new Promise((r) => setTimeout(r, 20));
        }
      });
      await holding;
      const calls = Promise.allSettled(
        Array.from({ length: 12 }, (_, i) => (i % 3 === 2 ? api.rollbackCohort({ id: cohort.id }) : api.activateCohort({ id: cohort.id }))),
      );
      fired();
      await blocker;
      const results = await calls;
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      const history = await db.select().from(proFlagChanges).where(inArray(proFlagChanges.proId, proIds)).orderBy(asc(proFlagChanges.id));
      expect(history).toHaveLength(12 * proIds.length);
      const broken: string[] = [];
      for (const proId of proIds) {
        let flag = false;
        for (const change of history.filter((h) => h.proId === proId)) {
          if (change.previous !== flag) broken.push(`${proId} #${change.id}: previous ${change.previous}, was ${flag}`);
          flag = change.restrictionActive;
        }
      }
      expect(broken).toEqual([]);
    });

    it("does not deadlock when two cohorts sharing pros are activated and rolled back in parallel", async () => {
      const api = await adminApi();
      const shared = newProIds(60);
      const [a, b] = await Promise.all([shared.slice(0, 40), shared.slice(20)].map((proIds) => passedCohort(api, proIds)));
      const calls = Array.from({ length: 20 }, (_, i) => {
        const cohort = i % 2 === 0 ? a! : b!;
        return i % 4 < 2 ? api.activateCohort({ id: cohort.id }) : api.rollbackCohort({ id: cohort.id });
      });
      const results = await Promise.allSettled(calls);
      expect(results.filter((r) => r.status === "rejected")).toEqual([]);
      // The pros only one cohort lists follow that cohort.
      await expectConsistent(a!.id, shared.slice(0, 20));
      await expectConsistent(b!.id, shared.slice(40));
    });
  });
});
