// Every gate check of a cohort, newest first: the figures given and what they decided.
import { useQuery } from "@tanstack/react-query";
import { trpc } from "../api.js";
import { ErrorNotice } from "../components/ErrorNotice.js";
import { Time } from "../components/Time.js";

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
        <table>
          <thead>
            <tr>
              <th scope="col">Checked</th>
              <th scope="col" className="num">Response rate</th>
              <th scope="col" className="num">Comparisons</th>
              <th scope="col">Log live</th>
              <th scope="col">Legal sign-off</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {checks.data?.map((check) => (
              <tr key={check.id}>
                <td>
                  <Time value={check.checkedAt} />
                </td>
                <td className="num">{check.responseRate ?? "—"}</td>
                <td className="num">{check.comparisonsDone ?? "—"}</td>
                <td>{yesNo(check.logLive)}</td>
                <td>{yesNo(check.legalSignoff)}</td>
                <td>
                  {check.allGatesMet ? (
                    <span className="badge badge-active">All gates met</span>
                  ) : (
                    <>
                      <span className="badge badge-fail">Blocked</span> {check.blockedBy ?? "unknown"}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
