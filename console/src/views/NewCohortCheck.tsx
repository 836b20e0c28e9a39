// What the service says of a new cohort before it is created (restriction.previewNewCohort, which writes
// nothing): its number already taken, ids that are no known pro, pros already in an active cohort. Asked
// once the operator pauses (300 ms), only for a list the service would accept.
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { type RouterInputs, type RouterOutputs, trpcClient } from "../api.js";
import { IdList } from "../components/IdList.js";
import { plural } from "../format.js";
import { useDebounced } from "../useDebounced.js";

type NewCohort = RouterInputs["restriction"]["previewNewCohort"];
export type NewCohortCheck = RouterOutputs["restriction"]["previewNewCohort"];

const PAUSE_MS = 300;
/** Ids named in one note; the rest are counted. */
const NAMED = 10;

/**
 * The check of `input` (null while the form cannot be sent): `check` is the answer for exactly what is on
 * screen, never one for an earlier edit; `checking` while it is awaited.
 */
export function useNewCohortCheck(input: NewCohort | null) {
  const key = input ? JSON.stringify(input) : "";
  const settledKey = useDebounced(key, PAUSE_MS);
  const settled = useMemo(() => (settledKey ? (JSON.parse(settledKey) as NewCohort) : null), [settledKey]);
  const query = useQuery({
    queryKey: ["new-cohort-preview", settled?.cohortNumber, settled?.proIds],
    queryFn: () => trpcClient.restriction.previewNewCohort.mutate(settled as NewCohort),
    enabled: settled !== null,
  });
  const current = key !== "" && settledKey === key;
  return {
    check: current ? query.data : undefined,
    checking: key !== "" && (!current || query.isFetching),
    error: current ? query.error : null,
  };
}

const named = (ids: readonly string[]) => (
  <>
    <IdList ids={ids.slice(0, NAMED)} />
    {ids.length > NAMED && <> and {ids.length - NAMED} more</>}
  </>
);

/** The warnings and notes of a check; none of them blocks creating the cohort. */
export function NewCohortNotes({ check, cohortNumbers }: { check: NewCohortCheck; cohortNumbers: Map<string, number> }) {
  const unknown = check.unknownPros;
  const inActive = check.alsoInActiveCohorts;
  const numbersOf = (cohortIds: string[]) => {
    const numbers = cohortIds.map((id) => cohortNumbers.get(id)).filter((n) => n !== undefined);
    return numbers.length === cohortIds.length
      ? `${numbers.length === 1 ? "cohort" : "cohorts"} ${numbers.join(", ")}`
      : plural(cohortIds.length, "active cohort");
  };
  return (
    <>
      {unknown.length > 0 && (
        <div className="notice notice-warn">
          <p>
            <strong>
              {unknown.length === 1 ? "1 of these ids is not a known pro" : `${unknown.length} of these ids are not known pros`}:
            </strong>{" "}
            {named(unknown)}.
          </p>
          <p>They will be restricted all the same when the cohort is activated.</p>
        </div>
      )}
      {inActive.length > 0 && (
        <div className="notice notice-off">
          <p>
            {inActive.length === 1
              ? "1 of these pros is already in an active cohort"
              : `${inActive.length} of these pros are already in active cohorts`}
            :
          </p>
          <ul className="plain in-active">
            {inActive.slice(0, NAMED).map((p) => (
              <li key={p.proId}>
                <IdList ids={[p.proId]} /> ({numbersOf(p.cohortIds)})
              </li>
            ))}
          </ul>
          {inActive.length > NAMED && <p>and {inActive.length - NAMED} more.</p>}
        </div>
      )}
    </>
  );
}
