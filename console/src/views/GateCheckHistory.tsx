// Every gate check of a cohort, newest first: the figures given and what they decided.
import { useQuery } from "@tanstack/react-query";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Explained } from "../components/Explained.js";
import { StackedTable } from "../components/StackedTable.js";
import { Time } from "../components/Time.js";
import { explainBlocker } from "../gates.js";

const yesNo = (value: boolean) => (value ? "yes" : "no");

export function GateCheckHistory({ cohortId }: { cohortId: string }) {
  const checks = useQuery(trpc.restriction.listGateChecks.queryOptions({ id: cohortId }));
  return (
    <section className="card" aria-labelledby="gate-history-title">
      <h2 id="gate-history-title">Gate checks</h2>
      <ErrorNotice error={checks.error} />
      {checks.isPending ? (
        <p aria-busy="true">Loading gate checks…</p>
      ) : checks.data?.length === 0 ? (
        <p className="empty">No gate check yet: activation stays blocked until one passes.</p>
      ) : (
        // On a phone each check is a block of labelled lines (styles.css, table.stacked).
        <StackedTable
          caption="Gate checks of the cohort, newest first"
          columns={["Checked", "Response rate#", "Comparisons#", "Log live", "Legal sign-off", "Result"]}
        >
          {checks.data?.map((check) => (
            <tr key={check.id}>
              <td data-label="Checked">
                <Time value={check.checkedAt} />
              </td>
              <td data-label="Response rate" className="num">
                {check.responseRate ?? "—"}
              </td>
              <td data-label="Comparisons" className="num">
                {check.comparisonsDone ?? "—"}
              </td>
              <td data-label="Log live">{yesNo(check.logLive)}</td>
              <td data-label="Legal sign-off">{yesNo(check.legalSignoff)}</td>
              <td data-label="Result">
                {check.allGatesMet ? (
                  <span className="badge badge-active">All gates met</span>
                ) : (
                  <>
                    <span className="badge badge-fail">Blocked</span> <Explained text={explainBlocker(check.blockedBy ?? "unknown")} />
                  </>
                )}
              </td>
            </tr>
          ))}
        </StackedTable>
      )}
    </section>
  );
}
