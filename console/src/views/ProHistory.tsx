// Every change of one pro's restriction flag, newest first, whether made per pro or by a cohort.
import { useQuery } from "@tanstack/react-query";
import { Link } from "wouter";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";

const onOff = (active: boolean) => (active ? "on" : "off");

/** The pro's events in the audit log: its own and the cohort changes that switched its flag. */
const auditLink = (proId: string) => `/audit?${new URLSearchParams({ proId })}`;

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
        <StackedTable caption="Changes of the pro&apos;s flag, newest first" columns={["When", "Restriction", "Via", "By", "Audit event"]}>
          {history.data?.changes.map((change) => (
            <tr key={change.auditEventId + String(change.at.getTime())}>
              <td data-label="When">
                <Time value={change.at} />
              </td>
              <td data-label="Restriction">
                {onOff(change.previous)} → <strong>{onOff(change.restrictionActive)}</strong>
              </td>
              <td data-label="Via">
                {change.via === "cohort" && change.cohortId ? (
                  <Link href={`/cohorts/${change.cohortId}`}>cohort {change.cohortNumber ?? change.cohortId}</Link>
                ) : (
                  "per pro"
                )}
              </td>
              <td data-label="By">{change.actor.email}</td>
              <td data-label="Audit event">
                <Link href={auditLink(proId)} title={change.auditEventId}>
                  <code>{change.auditEventId.slice(0, 8)}</code>
                </Link>
              </td>
            </tr>
          ))}
        </StackedTable>
      )}
    </section>
  );
}
