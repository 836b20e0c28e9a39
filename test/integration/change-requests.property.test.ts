// A property of four-eyes approval: for random sequences of change requests, approvals, rejections and
// direct flag changes over overlapping cohorts, every approval either leaves each pro's flag as the
// request's preview said it would (turnOn on, turnOff off), or is refused as stale and changes nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pros } from "../../db/schema/index.js";
import { uniqueCohortNumber, useTestApp } from "../helpers/app.js";
import { newProIds, PASSING_GATES } from "../helpers/fixtures.js";

type Step =
  | { kind: "request"; cohort: number; action: "activate" | "rollback" }
  | { kind: "approve" | "reject"; pick: number }
  | { kind: "flag"; pro: number; on: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("request" as const),
    cohort: fc.integer({ min: 0, max: 2 }),
    action: fc.constantFrom("activate" as const, "rollback" as const),
  }),
  fc.record({ kind: fc.constantFrom("approve" as const, "reject" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("flag" as const), pro: fc.integer({ min: 0, max: 5 }), on: fc.boolean() }),
);

describe("four-eyes approval: an approval applies what was reviewed, or nothing", () => {
  const t = useTestApp({ approvals: "required" });

  it("holds for random requests, decisions and direct flag changes", async () => {
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
        const flagOf = async (proId: string) => (await b.getPro({ proId })).restrictionActive;
        const pending: string[] = [];
        for (const s of steps) {
          if (s.kind === "request") {
            const made = await a.createChangeRequest({ id: cohorts[s.cohort]!.id, action: s.action }).catch(() => null);
            if (made) pending.push(made.changeRequest.id);
          } else if (s.kind === "flag") {
            await (s.on ? b.activatePro({ proId: proIds[s.pro]! }) : b.rollbackPro({ proId: proIds[s.pro]! }));
          } else if (pending.length) {
            const id = pending.splice(s.pick % pending.length, 1)[0]!;
            if (s.kind === "reject") {
              await b.rejectChangeRequest({ id, comment: "no" });
              continue;
            }
            const { changeRequest: request } = await b.getChangeRequest({ id });
            const before = await Promise.all(proIds.map(flagOf));
            const outcome = await b.approveChangeRequest({ id }).then(
              () => "applied" as const,
              (err: { kind?: string }) => err.kind,
            );
            const after = await Promise.all(proIds.map(flagOf));
            if (outcome === "applied") {
              for (const proId of request.preview.turnOn) expect(await flagOf(proId)).toBe(true);
              for (const proId of request.preview.turnOff) expect(await flagOf(proId)).toBe(false);
            } else {
              expect({ outcome, status: (await b.getChangeRequest({ id })).changeRequest.status }).toEqual({
                outcome: "CONFLICT",
                status: "stale",
              });
              expect(after).toEqual(before);
            }
          }
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
