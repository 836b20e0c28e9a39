import { describe, expect, it } from "vitest";
import { NO_GATE_CHECK_MESSAGE } from "../../server/restriction/gates.js";
import { type ImpactFacts, impactOf, sameImpact } from "../../server/restriction/impact.js";

const facts = (overrides: Partial<ImpactFacts> = {}): ImpactFacts => ({
  action: "activate",
  cohort: { id: "c1", proIds: ["a", "b", "c", "d"] },
  latestCheck: { allGatesMet: true, blockedBy: null },
  flags: new Map([
    ["a", true],
    ["b", false],
  ]),
  knownPros: new Set(["a", "b", "c"]),
  otherActiveCohorts: [],
  ...overrides,
});

describe("impactOf: what a cohort action would do", () => {
  it("activate: switches on every pro that is off or has no status, leaves the ones already on", () => {
    expect(impactOf(facts())).toEqual({
      action: "activate",
      cohortId: "c1",
      blockedBy: null,
      turnOn: ["b", "c", "d"],
      turnOff: [],
      unchanged: ["a"],
      unknownPros: ["d"],
      alsoInOtherActiveCohorts: [],
    });
  });

  it("rollback: switches off the pros that are on; never blocked", () => {
    const impact = impactOf(facts({ action: "rollback", latestCheck: null }));
    expect(impact).toMatchObject({ blockedBy: null, turnOn: [], turnOff: ["a"], unchanged: ["b", "c", "d"] });
  });

  it("activate says exactly what activation would answer when it is blocked", () => {
    expect(impactOf(facts({ latestCheck: null })).blockedBy).toBe(NO_GATE_CHECK_MESSAGE);
    expect(impactOf(facts({ latestCheck: { allGatesMet: false, blockedBy: "legal_signoff missing" } })).blockedBy).toBe(
      "Activation blocked by unmet gates: legal_signoff missing",
    );
  });

  it("names the other active cohorts that hold a pro, in the cohort's pro order, ignoring itself", () => {
    const impact = impactOf(
      facts({
        otherActiveCohorts: [
          { id: "c9", proIds: ["c", "a", "z"] },
          { id: "c1", proIds: ["a", "b"] },
          { id: "c3", proIds: ["a"] },
        ],
      }),
    );
    expect(impact.alsoInOtherActiveCohorts).toEqual([
      { proId: "a", cohortIds: ["c3", "c9"] },
      { proId: "c", cohortIds: ["c9"] },
    ]);
  });

  it("splits every pro exactly once", () => {
    for (const action of ["activate", "rollback"] as const) {
      const impact = impactOf(facts({ action }));
      expect([...impact.turnOn, ...impact.turnOff, ...impact.unchanged].sort()).toEqual(["a", "b", "c", "d"]);
    }
  });
});

describe("sameImpact: whether an approval would apply what was reviewed", () => {
  const reviewed = { turnOn: ["a", "b"], turnOff: [], alsoInOtherActiveCohorts: [{ proId: "a", cohortIds: ["c2", "c3"] }] };

  it("is the same whatever the order of pros and cohorts", () => {
    expect(
      sameImpact(reviewed, { turnOn: ["b", "a"], turnOff: [], alsoInOtherActiveCohorts: [{ proId: "a", cohortIds: ["c3", "c2"] }] }),
    ).toBe(true);
  });

  it("differs when a pro would be switched on or off that was not, or the other way round", () => {
    expect(sameImpact(reviewed, { ...reviewed, turnOn: ["a"] })).toBe(false);
    expect(sameImpact(reviewed, { ...reviewed, turnOn: ["a", "c"] })).toBe(false);
    expect(sameImpact(reviewed, { ...reviewed, turnOff: ["d"] })).toBe(false);
  });

  it("differs when other active cohorts hold other pros, or the same pro in other cohorts", () => {
    expect(sameImpact(reviewed, { ...reviewed, alsoInOtherActiveCohorts: [] })).toBe(false);
    expect(sameImpact(reviewed, { ...reviewed, alsoInOtherActiveCohorts: [{ proId: "a", cohortIds: ["c2"] }] })).toBe(false);
    expect(sameImpact(reviewed, { ...reviewed, alsoInOtherActiveCohorts: [{ proId: "b", cohortIds: ["c2", "c3"] }] })).toBe(false);
  });
});
