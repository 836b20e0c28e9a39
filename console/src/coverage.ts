// Why an active cohort's pros are off (restriction.cohortCoverage), summed up for the cohort list: each
// cause with how many pros it switched off, the largest first. Pure: test/unit/console-coverage.test.ts.
import type { RouterOutputs } from "./api.js";

export type Coverage = RouterOutputs["restriction"]["cohortCoverage"];
type TurnedOffBy = NonNullable<Coverage["notRestricted"][number]["turnedOffBy"]>;

/** What switched a pro off, in words: "cohort 7's rollback", "a per-pro rollback", "never set". */
export function causeOf(turnedOffBy: TurnedOffBy | null): string {
  if (!turnedOffBy) return "never set";
  if (turnedOffBy.via === "pro") return "a per-pro rollback";
  return `cohort ${turnedOffBy.cohortNumber ?? turnedOffBy.cohortId}'s rollback`;
}

/** The causes of a cohort's pros being off, each with its count, the most pros first (then by name). */
export function offCauses(coverage: Coverage): { cause: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const { turnedOffBy } of coverage.notRestricted) {
    const cause = causeOf(turnedOffBy);
    counts.set(cause, (counts.get(cause) ?? 0) + 1);
  }
  return [...counts].map(([cause, count]) => ({ cause, count })).sort((a, b) => b.count - a.count || a.cause.localeCompare(b.cause));
}
