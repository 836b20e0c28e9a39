// A cohort's change requests (docs/api.md#four-eyes-approval), newest first: what was asked, by whom, and who
// decided what.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { RequestStatusBadge } from "../components/RequestStatusBadge.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";
import { formatDate } from "../format.js";
import { actionNoun, requestPath } from "./changeRequests.js";

/** The cohort's requests: this history and the cohort's actions share the one query. */
export const cohortRequestsQuery = (cohortId: string) => trpc.restriction.listChangeRequests.queryOptions({ cohortId });

export function ChangeRequestHistory({ cohortId, cohortNumber }: { cohortId: string; cohortNumber: number }) {
  const requests = useQuery(cohortRequestsQuery(cohortId));
  const rows = requests.data?.changeRequests ?? [];
  return (
    <section className="card" aria-labelledby="requests-title">
      <h2 id="requests-title">Change requests</h2>
      <ErrorNotice error={requests.error} />
      {requests.isPending ? (
        <p aria-busy="true">Loading change requests…</p>
      ) : rows.length === 0 && !requests.isError ? (
        <p className="empty">No change request yet.</p>
      ) : (
        <StackedTable
          className="requests"
          caption={<>Change requests of cohort {cohortNumber}, newest first</>}
          columns={["Requested", "Action", "Status", "Requested by", "Reason", "Decided by", "Comment"]}
        >
          {rows.map((r) => (
            <tr key={r.id}>
              <td data-label="Requested" className="when">
                <Time value={r.requestedAt} />
              </td>
              <td data-label="Action">
                <Link href={requestPath(r.id)} aria-label={`${actionNoun[r.action]} request of ${formatDate(r.requestedAt)}`}>
                  {actionNoun[r.action]}
                </Link>
              </td>
              <td data-label="Status">
                <RequestStatusBadge status={r.status} />
              </td>
              <td data-label="Requested by" className="wrap-anywhere">
                <span className="email">{r.requestedBy.email}</span>
              </td>
              <td data-label="Reason" className="wrap-anywhere">
                {r.reason ?? "—"}
              </td>
              <td data-label="Decided by" className="wrap-anywhere">
                {r.decidedBy ? (
                  <>
                    <span className="email">{r.decidedBy.email}</span>
                    <br />
                    <Time value={r.decidedAt} />
                  </>
                ) : (
                  "—"
                )}
              </td>
              <td data-label="Comment" className="wrap-anywhere">
                {r.comment ?? "—"}
              </td>
            </tr>
          ))}
        </StackedTable>
      )}
    </section>
  );
}
