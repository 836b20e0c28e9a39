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

  /** Pros p1..p3 (those in `on` switched on), a cohort of the three with its gates passed, and a pending request. */
  async function pendingRequest(action: "activate" | "rollback", on: ("p1" | "p2" | "p3")[]) {
    const a = t().caller(await t().signUp({ admin: true })).restriction;
    const b = t().caller(await t().signUp({ admin: true })).restriction;
    const ids = newProIds(3) as [string, string, string];
    const [p1, p2, p3] = ids;
    const { db } = t().db;
    await db.insert(pros).values(ids.map((id) => ({ id, name: id })));
    const named = { p1, p2, p3 };
    if (on.length) await db.insert(proRestrictionStatus).values(on.map((name) => ({ proId: named[name], restrictionActive: true })));
    const cohort = await a.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: ids });
    await a.checkGates({ id: cohort.id, ...PASSING_GATES });
    const { changeRequest } = await a.createChangeRequest({ id: cohort.id, action });
    return { a, b, p1, p2, p3, changeRequest };
  }

  /** Holds a per-pro change between its flag write and its commit (its audit insert waits on this session). */
  const holdAudit = () =>
    sqlSession({
      hold: (s) => s`begin`.then(() => s`lock table audit_events in share mode`),
      release: (s) => s`commit`,
    });

  async function expectStale(b: Awaited<ReturnType<typeof pendingRequest>>["b"], id: string) {
    const [stored] = await t().db.db.select().from(changeRequests).where(eq(changeRequests.id, id));
    expect(stored).toMatchObject({ status: "stale", appliedAt: null });
    expect((await b.getChangeRequest({ id })).changeRequest.status).toBe("stale");
  }

  it("answers stale and leaves p3 off when p3's rollback commits while the approval waits on it", async () => {
    const { a, b, p1, p2, p3, changeRequest } = await pendingRequest("activate", ["p3"]);
    expect(changeRequest.preview).toMatchObject({ turnOn: [p1, p2], unchanged: [p3] });
    const run = await iso.run(
      {
        hold: holdAudit(),
        rollback: appSession({ rollback: () => a.rollbackPro({ proId: p3 }) }),
        approve: appSession({ approve: () => b.approveChangeRequest({ id: changeRequest.id }) }),
      },
      ["hold", "rollback", "approve", "release"],
    );
    expect(run.results.rollback).toMatchObject({ blocked: true, ok: true });
    // The approval met p3's row held by the rollback and waited for it, then saw the impact had changed.
    expect(run.results.approve).toMatchObject({ blocked: true, ok: false, error: { kind: "CONFLICT" } });
    expect((await b.getPro({ proId: p3 })).restrictionActive).toBe(false);
    expect((await b.getPro({ proId: p1 })).restrictionActive).toBe(false);
    await expectStale(b, changeRequest.id);
  });

  it("answers stale when a pro with no stored status gets its first flag while the approval waits on it", async () => {
    const { b, p1, p2, p3, changeRequest } = await pendingRequest("activate", []);
    expect(changeRequest.preview).toMatchObject({ turnOn: [p1, p2, p3] });
    const run = await iso.run(
      {
        // Another change's first write of p3, not yet committed: there is no row to lock yet.
        first: sqlSession({
          write: (s) => s`begin`.then(() => s`insert into pro_restriction_status (pro_id, restriction_active) values (${p3}, true)`),
          commit: (s) => s`commit`,
        }),
        approve: appSession({ approve: () => b.approveChangeRequest({ id: changeRequest.id }) }),
      },
      ["write", "approve", "commit"],
    );
    expect(run.results.approve).toMatchObject({ blocked: true, ok: false, error: { kind: "CONFLICT" } });
    // The places the approval held for p1 and p2 left nothing behind: still no stored status.
    expect(await b.getPro({ proId: p1 })).toEqual({ proId: p1, restrictionActive: false });
    expect(await b.getPro({ proId: p2 })).toEqual({ proId: p2, restrictionActive: false });
    await expectStale(b, changeRequest.id);
  });

  it("a rollback's approval answers stale when a per-pro rollback of one of its pros commits while it waits", async () => {
    const { a, b, p1, p2, p3, changeRequest } = await pendingRequest("rollback", ["p1", "p2", "p3"]);
    expect(changeRequest.preview).toMatchObject({ turnOff: [p1, p2, p3] });
    const run = await iso.run(
      {
        hold: holdAudit(),
        rollback: appSession({ rollback: () => a.rollbackPro({ proId: p3 }) }),
        approve: appSession({ approve: () => b.approveChangeRequest({ id: changeRequest.id }) }),
      },
      ["hold", "rollback", "approve", "release"],
    );
    expect(run.results.approve).toMatchObject({ blocked: true, ok: false, error: { kind: "CONFLICT" } });
    expect((await b.getPro({ proId: p1 })).restrictionActive).toBe(true);
    await expectStale(b, changeRequest.id);
  });

  it("applies the reviewed impact when the change it waited for leaves it as it was", async () => {
    // The same interleaving, but the change in flight writes p3's row and leaves it on.
    const { a, b, p1, p3, changeRequest } = await pendingRequest("activate", ["p3"]);
    const run = await iso.run(
      {
        hold: holdAudit(),
        rewrite: appSession({
          rewrite: () =>
            t().db.db.transaction(async (tx) => {
              await tx.update(proRestrictionStatus).set({ restrictionActive: true }).where(eq(proRestrictionStatus.proId, p3));
              await tx.execute(sql`lock table audit_events in row exclusive mode`); // as its audit insert would
            }),
        }),
        approve: appSession({ approve: () => b.approveChangeRequest({ id: changeRequest.id }) }),
      },
      ["hold", "rewrite", "approve", "release"],
    );
    expect(run.results.approve).toMatchObject({ blocked: true, ok: true, value: { changeRequest: { status: "applied" } } });
    expect([(await a.getPro({ proId: p1 })).restrictionActive, (await a.getPro({ proId: p3 })).restrictionActive]).toEqual([true, true]);
  });
});
