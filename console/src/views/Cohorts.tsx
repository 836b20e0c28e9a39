// Every cohort by number, and the form that creates one. An active cohort says how much of it is
// restricted now (CohortCoverage.tsx); on a phone each cohort is a block of labelled lines.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StackedTable } from "../components/StackedTable.js";
import { StatusBadge } from "../components/StatusBadge.js";
import { Time } from "../components/Time.js";
import { CoverageCell } from "./CohortCoverage.js";
import { CreateCohort } from "./CreateCohort.js";

export function Cohorts() {
  const cohorts = useQuery(trpc.restriction.listCohorts.queryOptions());
  const nextNumber = Math.max(0, ...(cohorts.data ?? []).map((c) => c.cohortNumber)) + 1;
  return (
    <>
      <section aria-labelledby="cohorts-title">
        <h1 id="cohorts-title">Cohorts</h1>
        <ErrorNotice error={cohorts.error} />
        {cohorts.isPending ? (
          <p aria-busy="true">Loading cohorts…</p>
        ) : cohorts.data?.length === 0 ? (
          <p className="empty">No cohorts yet. Create the first one below.</p>
        ) : (
          <StackedTable
            className="cohorts"
            caption="Cohorts by number"
            columns={["Number", "Status", "Pros#", "Restricted now", "Activated", "Rolled back", "Created"]}
          >
            {cohorts.data?.map((c) => (
              <tr key={c.id}>
                <td data-label="Number">
                  <Link href={`/cohorts/${c.id}`}>Cohort {c.cohortNumber}</Link>
                </td>
                <td data-label="Status">
                  <StatusBadge status={c.status} />
                </td>
                <td data-label="Pros" className="num">
                  {c.proIds.length}
                </td>
                <td data-label="Restricted now">
                  {c.status === "active" ? <CoverageCell id={c.id} pros={c.proIds.length} /> : <span className="hint">—</span>}
                </td>
                <td data-label="Activated">
                  <Time value={c.activatedAt} />
                </td>
                <td data-label="Rolled back">
                  <Time value={c.rollbackAt} />
                </td>
                <td data-label="Created">
                  <Time value={c.createdAt} />
                </td>
              </tr>
            ))}
          </StackedTable>
        )}
      </section>
      {cohorts.isSuccess && <CreateCohort suggestedNumber={nextNumber} />}
    </>
  );
}
