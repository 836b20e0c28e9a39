// docs/guarantees.md "A deadlock is never a 500": when PostgreSQL breaks a deadlock by rolling the service's
// transaction back, the caller hears 503 "send the request again", nothing was written, and the same request
// then succeeds. The deadlock is placed by the test: another session holds p2's flag, the cohort's activation
// takes p1 and waits on p2, then the other session asks for p1. Only the activation's deadlock check runs in
// time (the other session's deadlock_timeout is long), so the activation is the one rolled back.
import { inArray, sql } from "drizzle-orm";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proRestrictionStatus, pros } from "../../db/schema/index.js";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { COUNT_WAITING_HERE, otherSession, testDbKind } from "../helpers/db.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";
import { waitFor } from "../helpers/wait.js";

if (testDbKind() !== "postgres" || !process.env.TEST_DATABASE_URL) {
  throw new Error("test/postgres runs against PostgreSQL only (the postgres project, with TEST_DATABASE_URL)");
}

describe("a deadlock between a cohort's activation and another session (PostgreSQL)", () => {
  const t = useTestApp();
  let other: postgres.Sql;
  beforeAll(async () => {
    other = await otherSession(t().db);
  });
  afterAll(async () => {
    await other?.end();
  });

  const waitingOnLocks = async () => Number(((await t().db.db.execute(sql.raw(COUNT_WAITING_HERE))) as unknown as { n: number }[])[0]!.n);

  it("answers 503, writes nothing, and the same activation then succeeds", async () => {
    const admin = t().caller(await t().signUp({ admin: true })).restriction;
    const [p1, p2] = newProIds(2).sort() as [string, string];
    const { db } = t().db;
    await db.insert(pros).values([p1, p2].map((id) => ({ id, name: id })));
    await db.insert(proRestrictionStatus).values([p1, p2].map((proId) => ({ proId, restrictionActive: false })));
    const cohort = await admin.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: [p1, p2] });
    await admin.checkGates({ id: cohort.id, ...PASSING_GATES });

    await other`begin`;
    await other`set local deadlock_timeout = '60s'`;
    await other`select 1 from pro_restriction_status where pro_id = ${p2} for update`;
    const activation = admin.activateCohort({ id: cohort.id }).then(
      () => null,
      (err: unknown) => err,
    );
    await waitFor(waitingOnLocks, (n) => n === 1, { withinMs: 5000, what: "the activation waiting on p2" });
    // The cycle closes: the activation holds p1 and waits on p2; this session holds p2 and now waits on p1.
    const takeP1 = other`select 1 from pro_restriction_status where pro_id = ${p1} for update`.execute();
    expect(await activation).toMatchObject({
      kind: "SERVICE_UNAVAILABLE",
      message: "A concurrent change got in the way and nothing was written; send the request again",
    });
    await takeP1;
    await other`commit`;

    const flags = await db
      .select()
      .from(proRestrictionStatus)
      .where(inArray(proRestrictionStatus.proId, [p1, p2]));
    expect(flags.every((f) => !f.restrictionActive)).toBe(true);
    expect((await admin.activateCohort({ id: cohort.id })).status).toBe("active");
  });
});
