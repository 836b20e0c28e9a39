// docs/api.md#four-eyes-approval: an approval applies exactly the impact that was reviewed, or nothing (stale),
// even when a per-pro change of one of the cohort's pros is in flight while the approval reads the impact.
// The interleaving is forced with the isolation harness (test/helpers/isolation.ts): a session holding
// audit_events in share mode stops the per-pro rollback after it wrote the pro's flag and before it commits.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeRequests, proRestrictionStatus, pros } from "../../db/schema/index.js";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { testDbKind } from "../helpers/db.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";
import { appSession, type Isolation, openIsolation, sqlSession } from "../helpers/isolation.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("an approval racing a per-pro change of one of its pros (PostgreSQL)", () => {
  const t = useTestApp({ approvals: "required" });
  let iso: Isolation;
  beforeAll(async () => {
    iso = await openIsolation(t().db);
  });
  afterAll(async () => {
    await iso?.close();
  });

  /** Pros p1..p3 with p3 on, a cohort of the three with its gates passed, and a pending request to activate it. */
  async function requestWithP3On() {
    const a = t().caller(await t().signUp({ admin: true })).restriction;
    const b = t().caller(await t().signUp({ admin: true })).restriction;
    const [p1, p2, p3] = newProIds(3) as [string, string, string];
    const { db } = t().db;
    await db.insert(pros).values([p1, p2, p3].map((id) => ({ id, name: id })));
    await db.insert(proRestrictionStatus).values({ proId: p3, restrictionActive: true });
    const cohort = await a.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: [p1, p2, p3] });
    await a.checkGates({ id: cohort.id, ...PASSING_GATES });
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action: "activate" });
    expect(changeRequest.preview).toMatchObject({ turnOn: [p1, p2], unchanged: [p3] });
    return { a, b, p3, changeRequest };
  }

  it("answers stale and leaves p3 off when p3's rollback commits while the approval waits on it", async () => {
    const { a, b, p3, changeRequest } = await requestWithP3On();
    const run = await iso.run(
      {
        // Holds the per-pro rollback between its flag write and its commit (its audit insert waits here).
        hold: sqlSession({
          hold: (s) => s`begin`.then(() => s`lock table audit_events in share mode`),
          release: (s) => s`commit`,
        }),
        rollback: appSession({ rollback: () => a.rollbackPro({ proId: p3 }) }),
        approve: appSession({ approve: () => b.approveChangeRequest({ id: changeRequest.id }) }),
      },
      ["hold", "rollback", "approve", "release"],
    );
    expect(run.results.rollback).toMatchObject({ blocked: true, ok: true });
    // The approval met p3's row held by the rollback and waited for it, then saw the impact had changed.
    expect(run.results.approve).toMatchObject({ blocked: true, ok: false, error: { kind: "CONFLICT" } });
    expect((await b.getPro({ proId: p3 })).restrictionActive).toBe(false);
    const [stored] = await t().db.db.select().from(changeRequests).where(eq(changeRequests.id, changeRequest.id));
    expect(stored).toMatchObject({ status: "stale", appliedAt: null });
  });

  it("applies the reviewed impact when the per-pro change leaves it as it was", async () => {
    // Same interleaving, but the in-flight change writes p3's row and leaves it on: the impact is the reviewed one.
    const { a, b, p3, changeRequest } = await requestWithP3On();
    const run = await iso.run(
      {
        hold: sqlSession({
          hold: (s) => s`begin`.then(() => s`lock table audit_events in share mode`),
          release: (s) => s`commit`,
        }),
        reactivate: appSession({
          reactivate: () =>
            t().db.db.transaction(async (tx) => {
              await tx.update(proRestrictionStatus).set({ restrictionActive: true }).where(eq(proRestrictionStatus.proId, p3));
              await tx.execute(sql`lock table audit_events in row exclusive mode`); // as its audit insert would
            }),
        }),
        approve: appSession({ approve: () => b.approveChangeRequest({ id: changeRequest.id }) }),
      },
      ["hold", "reactivate", "approve", "release"],
    );
    expect(run.results.approve).toMatchObject({ blocked: true, ok: true, value: { changeRequest: { status: "applied" } } });
    expect((await a.getPro({ proId: p3 })).restrictionActive).toBe(true);
  });
});
