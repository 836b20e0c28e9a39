// A property of four-eyes approval: for random sequences of change requests, approvals, rejections, emergency
// rollbacks and flag changes made outside the requests, over overlapping cohorts, an approval is applied
// exactly when the impact now (read just before it) is the one reviewed: the same pros switched on and off,
// and the same pros held by other active cohorts. Applied, the flags change as the preview said and no
// other flag moves; refused as stale, nothing changes. The examples are the cases a lax comparison misses.
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pros } from "../../db/schema/index.js";
import type { Impact } from "../../server/restriction/impact.js";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";

type Step =
  | { kind: "request"; cohort: number; action: "activate" | "rollback" }
  | { kind: "approve" | "reject"; pick: number }
  | { kind: "flag"; pro: number; on: boolean }
  | { kind: "emergency"; cohort: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("request" as const),
    cohort: fc.integer({ min: 0, max: 2 }),
    action: fc.constantFrom("activate" as const, "rollback" as const),
  }),
  fc.record({ kind: fc.constantFrom("approve" as const, "reject" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("flag" as const), pro: fc.integer({ min: 0, max: 5 }), on: fc.boolean() }),
  fc.record({ kind: fc.constant("emergency" as const), cohort: fc.integer({ min: 0, max: 2 }) }),
);

const request = (cohort: number, action: "activate" | "rollback"): Step => ({ kind: "request", cohort, action });
const approve: Step = { kind: "approve", pick: 0 };
const flag = (pro: number, on: boolean): Step => ({ kind: "flag", pro, on });
const emergency = (cohort: number): Step => ({ kind: "emergency", cohort });

/** The sequences a lax comparison lets through; fast-check runs them before its random ones. */
const examples: [Step[]][] = [
  // A pro to switch on was switched on meanwhile: activation would switch on fewer pros.
  [[request(0, "activate"), flag(0, true), approve]],
  // A pro to switch off was switched off meanwhile (rollback approvals compare too).
  [[flag(2, true), request(1, "rollback"), flag(2, false), approve]],
  // Only who else holds a pro changed: cohort 0 (pros 0-2) was active when the rollback of cohort 1 (2-4) was
  // asked for, then rolled back in an emergency, and pro 2 switched on again by hand.
  [[request(0, "activate"), approve, request(1, "rollback"), emergency(0), flag(2, true), approve]],
  // The same for an activation: cohort 0 holds pro 2 (on) when cohort 1's activation is asked for.
  [[request(0, "activate"), approve, request(1, "activate"), emergency(0), flag(2, true), approve]],
];

/** What an approval compares, as sets (order does not matter). */
const comparable = (impact: Impact) => ({
  turnOn: [...impact.turnOn].sort(),
  turnOff: [...impact.turnOff].sort(),
  alsoInOtherActiveCohorts: impact.alsoInOtherActiveCohorts
    .map(({ proId, cohortIds }) => `${proId}: ${[...cohortIds].sort().join(",")}`)
    .sort(),
});

describe("four-eyes approval: an approval applies what was reviewed, or nothing", () => {
  const t = useTestApp({ approvals: "required" });

  it("holds for random requests, decisions, emergency rollbacks and flag changes", async () => {
    const a = t().caller(await t().signUp({ admin: true })).restriction;
    const b = t().caller(await t().signUp({ admin: true })).restriction;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        // Six pros in three overlapping cohorts of three: 0-2, 2-4, 4-5 and 0.
        const proIds = newProIds(6);
        await t()
          .db.db.insert(pros)
          .values(proIds.map((id) => ({ id, name: id })));
        const members = [
          [0, 1, 2],
          [2, 3, 4],
          [4, 5, 0],
        ];
        const cohorts = [];
        for (const m of members) {
          const cohort = await a.createCohort({ cohortNumber: uniqueCohortNumber(), proIds: m.map((i) => proIds[i]!) });
          await a.checkGates({ id: cohort.id, ...PASSING_GATES });
          cohorts.push(cohort);
        }
        const statuses = () => Promise.all(proIds.map((proId) => b.getPro({ proId })));
        const flags = async () => (await statuses()).map((status) => status.restrictionActive);
        const pending: string[] = [];
        for (const s of steps) {
          if (s.kind === "request") {
            const made = await a.createChangeRequest({ id: cohorts[s.cohort]!.id, action: s.action }).catch(() => null);
            if (made) pending.push(made.changeRequest.id);
          } else if (s.kind === "emergency") {
            await b.rollbackCohort({ id: cohorts[s.cohort]!.id, reason: "emergency: pros complain" });
          } else if (s.kind === "flag") {
            // A switch made outside the requests: per-pro activation itself needs a request while approvals are required.
            if (s.on) {
              await t().db.db.execute(sql`insert into pro_restriction_status (pro_id, restriction_active) values (${proIds[s.pro]!}, true)
                on conflict (pro_id) do update set restriction_active = true, cohort_id = null`);
            } else await b.rollbackPro({ proId: proIds[s.pro]! });
          } else if (pending.length) {
            const id = pending.splice(s.pick % pending.length, 1)[0]!;
            if (s.kind === "reject") {
              await b.rejectChangeRequest({ id, comment: "no" });
              continue;
            }
            const { changeRequest } = await b.getChangeRequest({ id });
            const reviewed = changeRequest.preview as Impact;
            const now = await b.previewCohort({ id: reviewed.cohortId, action: reviewed.action });
            const unchangedImpact = JSON.stringify(comparable(now)) === JSON.stringify(comparable(reviewed));
            const [before, statusesBefore] = [await flags(), await statuses()];
            const outcome = await b.approveChangeRequest({ id }).then(
              () => "applied" as const,
              (err: { kind?: string }) => err.kind,
            );
            const after = await flags();
            if (unchangedImpact) {
              expect(outcome).toBe("applied");
              // Exactly the reviewed pros moved, each the way the preview said.
              const expected = before.map((flag, i) =>
                reviewed.turnOn.includes(proIds[i]!) ? true : reviewed.turnOff.includes(proIds[i]!) ? false : flag,
              );
              expect(after).toEqual(expected);
            } else {
              expect({ outcome, status: (await b.getChangeRequest({ id })).changeRequest.status }).toEqual({
                outcome: "CONFLICT",
                status: "stale",
              });
              // Nothing at all: not a flag, not a write time, not a status row where there was none.
              expect(await statuses()).toEqual(statusesBefore);
            }
          }
        }
      }),
      { numRuns: 12, examples },
    );
  }, 180_000);
});
