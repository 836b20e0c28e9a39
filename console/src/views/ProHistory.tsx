// Every change of one pro's restriction flag, newest first, whether made per pro or by a cohort.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { TableHead } from "../components/TableHead.js";
import { Time } from "../components/Time.js";

const onOff = (active: boolean) => (active ? "on" : "off");

/** The audit events of what made the change: the cohort's, or the pro's own. */
const auditLink = (cohortId: string | null, proId: string) =>
  `/audit?${new URLSearchParams(cohortId ? { targetType: "cohort", targetId: cohortId } : { targetType: "pro", targetId: proId })}`;

export function ProHistory({ proId }: { proId: string }) {
  const history = useQuery(trpc.restriction.proHistory.queryOptions({ proId }));
  return (
    <section className="card" aria-labelledby="pro-history-title">
      <h2 id="pro-history-title">History</h2>
      <ErrorNotice error={history.error} />
      {history.isPending ? (
        <p aria-busy="true">Loading history…</p>
      ) : history.data?.changes.length === 0 ? (
        <p className="empty">No change of this pro&apos;s flag has been recorded.</p>
      ) : (
        <table>
          <TableHead columns={["When", "Restriction", "Via", "By", "Audit event"]} />
          <tbody>
            {history.data?.changes.map((change) => (
              <tr key={change.auditEventId + String(change.at.getTime())}>
                <td>
                  <Time value={change.at} />
                </td>
                <td>
                  {onOff(change.previous)} → <strong>{onOff(change.restrictionActive)}</strong>
                </td>
                <td>
                  {change.via === "cohort" && change.cohortId ? (
                    <Link href={`/cohorts/${change.cohortId}`}>cohort {change.cohortNumber ?? change.cohortId}</Link>
                  ) : (
                    "per pro"
                  )}
                </td>
                <td>{change.actor.email}</td>
                <td>
                  <Link href={auditLink(change.cohortId, proId)} title={change.auditEventId}>
                    <code>{change.auditEventId.slice(0, 8)}</code>
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
