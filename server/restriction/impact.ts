// Pure rule of the impact preview (docs/api.md#impact-preview): what activating or rolling back a cohort
// would do to each of its pros' flags. No I/O, unit-tested on its own.
import { activationBlocker, type GateResult } from "./gates.js";

export type CohortAction = "activate" | "rollback";

export type Impact = {
  action: CohortAction;
  cohortId: string;
  /** For activate, the message activation would answer with, or null; always null for rollback. */
  blockedBy: string | null;
  /** Pro ids whose flag the action switches on, switches off, or leaves as it is. */
  turnOn: string[];
  turnOff: string[];
  unchanged: string[];
  /** Pro ids that are not in the pros table (a cohort may list them; their flag is still written). */
  unknownPros: string[];
  /** Pros of this cohort that another active cohort also holds: a rollback switches them off even so. */
  alsoInOtherActiveCohorts: { proId: string; cohortIds: string[] }[];
};

export type ImpactFacts = {
  action: CohortAction;
  cohort: { id: string; proIds: readonly string[] };
  latestCheck: GateResult | null;
  /** The stored flag of each pro that has one. */
  flags: ReadonlyMap<string, boolean>;
  knownPros: ReadonlySet<string>;
  otherActiveCohorts: readonly { id: string; proIds: readonly string[] }[];
};

export function impactOf(facts: ImpactFacts): Impact {
  const target = facts.action === "activate";
  const turnOn: string[] = [];
  const turnOff: string[] = [];
  const unchanged: string[] = [];
  for (const proId of facts.cohort.proIds) {
    const current = facts.flags.get(proId) ?? false;
    if (current === target) unchanged.push(proId);
    else (target ? turnOn : turnOff).push(proId);
  }
  const members = new Set(facts.cohort.proIds);
  const holders = new Map<string, string[]>();
  for (const other of facts.otherActiveCohorts) {
    if (other.id === facts.cohort.id) continue;
    for (const proId of other.proIds) {
      if (members.has(proId)) holders.set(proId, [...(holders.get(proId) ?? []), other.id]);
    }
  }
  return {
    action: facts.action,
    cohortId: facts.cohort.id,
    blockedBy: target ? activationBlocker(facts.latestCheck) : null,
    turnOn,
    turnOff,
    unchanged,
    unknownPros: facts.cohort.proIds.filter((proId) => !facts.knownPros.has(proId)),
    alsoInOtherActiveCohorts: facts.cohort.proIds
      .filter((proId) => holders.has(proId))
      .map((proId) => ({ proId, cohortIds: holders.get(proId)!.sort() })),
  };
}

/**
 * Whether an approval would apply what was reviewed: the same pros switched on and off, and the same pros held
 * by other active cohorts (a reviewer may have accepted a rollback because those stay covered elsewhere)
 * (docs/api.md#four-eyes-approval). Order does not matter; which pros stay unchanged follows from the two.
 */
export function sameImpact(
  reviewed: Pick<Impact, "turnOn" | "turnOff" | "alsoInOtherActiveCohorts">,
  now: Pick<Impact, "turnOn" | "turnOff" | "alsoInOtherActiveCohorts">,
): boolean {
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set([...a, ...b]).size === a.length;
  const holders = (impact: Pick<Impact, "alsoInOtherActiveCohorts">) =>
    impact.alsoInOtherActiveCohorts.map(({ proId, cohortIds }) => JSON.stringify([proId, [...cohortIds].sort()]));
  return same(reviewed.turnOn, now.turnOn) && same(reviewed.turnOff, now.turnOff) && same(holders(reviewed), holders(now));
}
