// Pending approvals (docs/api.md#four-eyes-approval): every change waiting for a second admin, newest first:
// a cohort's activation or rollback, one pro's activation, the admin role for a user. The requester's own
// requests wait for someone else; anyone else's open for review.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";
import { formatDate } from "../format.js";
import { useSession } from "../session.js";
import { actionNoun, type ChangeRequest, describeRequest, requestPath, subjectOf } from "./changeRequests.js";

/** The pending requests: the navigation's count and this view share the one query. */
export const pendingRequestsQuery = () =>
  trpc.restriction.listChangeRequests.queryOptions({ status: "pending" }, { refetchInterval: 30_000 });

export function Approvals() {
  const me = useSession().data;
  const pending = useQuery(pendingRequestsQuery());
  const rows = pending.data?.changeRequests ?? [];
  return (
    <>
      <h1>Pending approvals</h1>
      <p className="hint">
        A cohort's activation or rollback, a pro's activation, or the admin role for an account, requested by one admin, waits here for a
        second. Open a request to compare the impact it was made with to the impact now, then approve or reject it. A request nobody decides
        within 72 hours expires.
      </p>
      <ErrorNotice error={pending.error} />
      {pending.isPending ? (
        <p aria-busy="true">Loading change requests…</p>
      ) : rows.length === 0 && !pending.isError ? (
        <p className="empty">Nothing is waiting for approval.</p>
      ) : (
        rows.length > 0 && <PendingTable requests={rows} myId={me?.id} />
      )}
    </>
  );
}

function PendingTable({ requests, myId }: { requests: ChangeRequest[]; myId: string | undefined }) {
  // On a phone a request is a block of labelled lines (table.stacked); wider, emails and times stay whole
  // (styles/platform.css), and the box scrolls sideways should a row still not fit.
  return (
    <StackedTable
      className="requests"
      caption="Change requests waiting for a second admin, newest first"
      columns={["About", "Action", "Requested by", "Requested", "Reason", "Review"]}
    >
      {requests.map((r) => {
        const mine = r.requestedBy.id === myId;
        const what = describeRequest(r).replace(/^./, (c) => c.toLowerCase());
        const subject = subjectOf(r);
        return (
          <tr key={r.id}>
            <td data-label="About" className="wrap-anywhere">
              {subject.href ? <Link href={subject.href}>{subject.label}</Link> : subject.label}
            </td>
            <td data-label="Action">{actionNoun[r.action]}</td>
            <td data-label="Requested by" className="wrap-anywhere">
              <span className="email">{r.requestedBy.email}</span>
              {mine && <span className="hint"> (you)</span>}
            </td>
            <td data-label="Requested" className="when">
              <Time value={r.requestedAt} />
            </td>
            <td data-label="Reason" className="wrap-anywhere">
              {r.reason ?? <span className="hint">none given</span>}
            </td>
            <td data-label="Review">
              {mine ? (
                <>
                  <span className="badge badge-pending">Waiting for another admin</span>{" "}
                  <Link href={requestPath(r.id)} aria-label={`Open your request: ${what}, ${formatDate(r.requestedAt)}`}>
                    Open
                  </Link>
                </>
              ) : (
                <Link href={requestPath(r.id)} aria-label={`Review the ${what}, requested ${formatDate(r.requestedAt)}`}>
                  Review
                </Link>
              )}
            </td>
          </tr>
        );
      })}
    </StackedTable>
  );
}
