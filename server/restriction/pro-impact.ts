// What activating one pro does, in the shape of a cohort's impact preview: a pure rule with no imports, so
// the service (a per-pro change request's preview) and the console (that preview now) share it.

/** Switch the pro on, or nothing when it is on already. */
export function impactOfProActivation(proId: string, on: boolean) {
  return {
    action: "activate" as const,
    cohortId: null,
    blockedBy: null,
    turnOn: on ? [] : [proId],
    turnOff: [] as string[],
    unchanged: on ? [proId] : [],
    unknownPros: [] as string[],
    alsoInOtherActiveCohorts: [] as { proId: string; cohortIds: string[] }[],
  };
}
