// Every cohort by number, and the form that creates one.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StatusBadge } from "../components/StatusBadge.js";
import { TableHead } from "../components/TableHead.js";
import { Time } from "../components/Time.js";
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
          <table>
            <caption className="visually-hidden">Cohorts by number</caption>
            <TableHead columns={["Number", "Status", "Pros#", "Activated", "Rolled back", "Created"]} />
            <tbody>
              {cohorts.data?.map((c) => (
                <tr key={c.id}>
                  <td>
                    <Link href={`/cohorts/${c.id}`}>Cohort {c.cohortNumber}</Link>
                  </td>
                  <td>
                    <StatusBadge status={c.status} />
                  </td>
                  <td className="num">{c.proIds.length}</td>
                  <td>
                    <Time value={c.activatedAt} />
                  </td>
                  <td>
                    <Time value={c.rollbackAt} />
                  </td>
                  <td>
                    <Time value={c.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {cohorts.isSuccess && <CreateCohort suggestedNumber={nextNumber} />}
    </>
  );
}
